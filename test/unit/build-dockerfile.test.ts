import { expandWord, goDuration, goQuoteRune, parseDockerfile, parseGoDuration, parseKeyValues } from '../../src/builder/dockerfile';

describe('Dockerfile parsing', () => {
  test('instructions, flags, continuations, escape directive, stages', () => {
    const df = parseDockerfile('# escape=`\nARG V=1\nFROM busybox AS Base\n# c\nRUN echo a `\n  b\nHEALTHCHECK --interval=5s --retries=2 CMD echo ok\nCOPY --chown=1:2 --from=x a /b/\nFROM base\n');
    expect(df.escape).toBe('`');
    expect(df.metaArgs.map((a) => a.original)).toEqual(['ARG V=1']);
    expect(df.stages.map((s) => s.name)).toEqual(['base', '']);
    const [run, hc, copy] = df.stages[0].steps;
    expect(run).toMatchObject({ cmd: 'RUN', original: 'RUN echo a   b', rest: 'echo a   b', line: 5 });
    expect(hc).toMatchObject({ cmd: 'HEALTHCHECK', flags: { interval: '5s', retries: '2' }, rest: 'CMD echo ok' });
    expect(copy).toMatchObject({ flags: { chown: '1:2', from: 'x' }, rest: 'a /b/' });
  });

  test('errors carry the engine\'s messages', () => {
    expect(() => parseDockerfile('FROM busybox\nFOO bar\n')).toThrow('dockerfile parse error line 2: unknown instruction: FOO');
    expect(() => parseDockerfile('FROM busybox\nENV\n')).toThrow('dockerfile parse error line 2: ENV requires at least one argument');
    expect(() => parseDockerfile('RUN x\n')).toThrow('no build stage in current context');
    expect(() => parseDockerfile('FROM a\nCOPY --bogus=1 a b\n')).toThrow('dockerfile parse error line 2: Unknown flag: bogus');
  });

  test('ENV/LABEL pairs and word expansion', () => {
    const df = parseDockerfile('FROM a\nENV A=1 B="x y" C=\'$A\'\nENV K v w\n');
    expect(parseKeyValues(df.stages[0].steps[0])).toEqual([['A', '1'], ['B', '"x y"'], ['C', "'$A'"]]);
    expect(parseKeyValues(df.stages[0].steps[1])).toEqual([['K', 'v w']]);
    const env = (k: string) => ({ A: 'a', E: '' } as Record<string, string>)[k];
    expect(expandWord('"x y"', env)).toBe('x y');
    expect(expandWord("'$A'", env)).toBe('$A');
    expect(expandWord('$A${A}${Z:-d}${A:+p}${Z:+q}${E:-e}\\$A', env)).toBe('aadpe$A');
    expect(expandWord('"$A\\"b"', env)).toBe('a"b');
  });

  test('Go formatting of durations and runes', () => {
    expect(goDuration(5e9)).toBe('5s');
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(90e9)).toBe('1m30s');
    expect(goDuration(5e8)).toBe('500ms');
    expect(goDuration(3.6e12)).toBe('1h0m0s');
    expect(parseGoDuration('1m30s')).toBe(90e9);
    expect(goQuoteRune(2)).toBe("'\\x02'");
    expect(goQuoteRune(0)).toBe("'\\x00'");
    expect(goQuoteRune(48)).toBe("'0'");
  });
});
