// Generated names of the engine's form (adjective_scientist), for containers and services created without one — pure
// (the randomness is passed in).

const ADJECTIVES = ['admiring', 'brave', 'calm', 'eager', 'focused', 'gallant', 'happy', 'jolly', 'keen', 'lucid', 'modest', 'nifty', 'quirky', 'relaxed', 'serene', 'trusting', 'vibrant', 'zealous'];
const NOUNS = ['albattani', 'bohr', 'curie', 'darwin', 'euler', 'fermi', 'galileo', 'hopper', 'kepler', 'lovelace', 'meitner', 'newton', 'noether', 'pasteur', 'ritchie', 'tesla', 'turing', 'wozniak'];

/** A name not `taken`: adjective_noun, with a digit appended when that is taken. `random` returns [0, 1). */
export function randomName(taken: (name: string) => boolean, random: () => number): string {
  for (;;) {
    const n = `${ADJECTIVES[Math.floor(random() * ADJECTIVES.length)]}_${NOUNS[Math.floor(random() * NOUNS.length)]}`;
    if (!taken(n)) return n;
    const m = `${n}${Math.floor(random() * 10)}`;
    if (!taken(m)) return m;
  }
}
