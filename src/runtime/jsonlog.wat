;; The json-file encoder's fast path for valid UTF-8 output (see jsonlog.ts, which writes the tables and calls it):
;; 16 bytes at a time, a block without anything to escape is copied as it is; a newline ends the entry and opens the
;; next one (the sequence `\n","stream":"…","time":"…"}` + newline + `{"log":"`); every other byte with an escape
;; gets it from the table; U+2028/U+2029 become \u2028/\u2029.
;; Assembled by scripts/build-wasm.sh (wat2wasm, Debian's wabt) into jsonlog-wasm.ts; a unit test checks the two agree.
;;
;; Memory (laid out by jsonlog.ts):
;;      0  escape table: for each ASCII byte, 8 bytes: its escape's length, then the escape (unused when 0)
;;   1024  the newline sequence (its length is the `seq` argument; it ends with the 8 bytes `{"log":"`)
;;   1280  `\u2028` (8-byte slot), 1288 `\u2029`
;;   2048… input, then output (the caller leaves 16 bytes of slack after each: blocks are read and written whole;
;;         the newline sequence is copied in blocks of 16, up to 15 bytes beyond it)
(module
  (memory (export "memory") 1)
  (func (export "encode") (param $in i32) (param $len i32) (param $out i32) (param $seq i32) (result i32)
    (local $end i32) (local $start i32) (local $v v128) (local $m i32) (local $rem i32) (local $k i32) (local $c i32)
    (local.set $end (i32.add (local.get $in) (local.get $len)))
    (local.set $start (local.get $out))
    ;; the first entry opens with the sequence's last 8 bytes
    (memory.copy (local.get $out) (i32.sub (i32.add (i32.const 1024) (local.get $seq)) (i32.const 8)) (i32.const 8))
    (local.set $out (i32.add (local.get $out) (i32.const 8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $rem (i32.sub (local.get $end) (local.get $in)))
        (local.set $v (v128.load (local.get $in)))
        ;; the bytes to look at: controls (newline included), " \ < > & and 0xe2 (the lead byte of U+2028/U+2029)
        (local.set $m
          (i8x16.bitmask
            (v128.or
              (v128.or
                (v128.or (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22))))
                (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x3c)))))
              (v128.or
                (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x3e))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x26))))
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xe2)))))))
        (if (i32.lt_u (local.get $rem) (i32.const 16))
          (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $rem)) (i32.const 1))))))
        (v128.store (local.get $out) (local.get $v))
        (if (i32.eqz (local.get $m))
          (then
            (local.set $k (select (i32.const 16) (local.get $rem) (i32.ge_u (local.get $rem) (i32.const 16))))
            (local.set $in (i32.add (local.get $in) (local.get $k)))
            (local.set $out (i32.add (local.get $out) (local.get $k)))
            (br $next)))
        ;; the bytes before the first one to look at are already out
        (local.set $k (i32.ctz (local.get $m)))
        (local.set $out (i32.add (local.get $out) (local.get $k)))
        (local.set $in (i32.add (local.get $in) (local.get $k)))
        (local.set $c (i32.load8_u (local.get $in)))
        (local.set $in (i32.add (local.get $in) (i32.const 1)))
        (if (i32.eq (local.get $c) (i32.const 0x0a))
          (then
            ;; 16 bytes at a time (memory.copy is a call out of the module: a third of the time per 63-byte line)
            (local.set $k (i32.const 0))
            (loop $seqcopy
              (v128.store (i32.add (local.get $out) (local.get $k)) (v128.load (i32.add (i32.const 1024) (local.get $k))))
              (local.set $k (i32.add (local.get $k) (i32.const 16)))
              (br_if $seqcopy (i32.lt_u (local.get $k) (local.get $seq))))
            (local.set $out (i32.add (local.get $out) (local.get $seq)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0xe2))
          (then
            (if (i32.and
                  (i32.eq (i32.load8_u (local.get $in)) (i32.const 0x80))
                  (i32.eq (i32.and (i32.load8_u offset=1 (local.get $in)) (i32.const 0xfe)) (i32.const 0xa8)))
              (then
                (i64.store (local.get $out) (i64.load (i32.add (i32.const 1280) (i32.shl (i32.and (i32.load8_u offset=1 (local.get $in)) (i32.const 1)) (i32.const 3)))))
                (local.set $out (i32.add (local.get $out) (i32.const 6)))
                (local.set $in (i32.add (local.get $in) (i32.const 2))))
              (else
                (i32.store8 (local.get $out) (local.get $c))
                (local.set $out (i32.add (local.get $out) (i32.const 1)))))
            (br $next)))
        ;; an ASCII byte with an escape
        (local.set $c (i32.shl (local.get $c) (i32.const 3)))
        (i64.store (local.get $out) (i64.load offset=1 (local.get $c)))
        (local.set $out (i32.add (local.get $out) (i32.load8_u (local.get $c))))
        (br $next)))
    ;; after a final newline the sequence closed the entry: drop the opening it added; otherwise close the entry
    (if (i32.and (i32.ne (local.get $len) (i32.const 0)) (i32.eq (i32.load8_u (i32.sub (local.get $end) (i32.const 1))) (i32.const 0x0a)))
      (then (local.set $out (i32.sub (local.get $out) (i32.const 8))))
      (else
        (memory.copy (local.get $out) (i32.const 1026) (i32.sub (local.get $seq) (i32.const 10)))
        (local.set $out (i32.add (local.get $out) (i32.sub (local.get $seq) (i32.const 10))))))
    (i32.sub (local.get $out) (local.get $start)))
  ;; The reader's fast path (see LogDecoder in jsonlog.ts; its own instance of this module, so the encoder's tables
  ;; are not in its way): berth's own json-file lines `{"log":"…","stream":"stdout|stderr",…}` + newline, from
  ;; $in to $in+$len (whole lines), become their entries' bytes at $out, each entry a frame of its own (8-byte header:
  ;; stream type, 3 zero bytes, big-endian length) when $flags has 4, entries of a stream left out unless $flags
  ;; has 1 (stdout) or 2 (stderr). The log text's escapes \n \" \\ \/ \t \r \b \f and \uXXXX below the surrogates
  ;; are decoded; a line with anything else (another writer's layout, a surrogate pair, a malformed line) stops the
  ;; decoder at that line's start, written at address 0, for the caller to decode it another way and call again after
  ;; it. Returns the output's length. The caller leaves 16 bytes of slack after the input and 64 after the output.
  (func $hex (param $c i32) (result i32)
    (if (i32.le_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 9)) (then (return (i32.sub (local.get $c) (i32.const 0x30)))))
    (local.set $c (i32.or (local.get $c) (i32.const 0x20)))
    (if (i32.le_u (i32.sub (local.get $c) (i32.const 0x61)) (i32.const 5)) (then (return (i32.sub (local.get $c) (i32.const 0x57)))))
    (i32.const -1))
  (func (export "decode") (param $in i32) (param $len i32) (param $out i32) (param $flags i32) (result i32)
    (local $end i32) (local $start i32) (local $line i32) (local $hdr i32) (local $v v128) (local $m i32) (local $rem i32)
    (local $k i32) (local $c i32) (local $cp i32) (local $type i32) (local $n i32)
    (local.set $end (i32.add (local.get $in) (local.get $len)))
    (local.set $start (local.get $out))
    (block $stop
      (loop $lines
        (local.set $line (local.get $in))
        (local.set $hdr (local.get $out))
        (br_if $stop (i32.ge_u (local.get $in) (local.get $end)))
        (br_if $stop (i32.gt_u (i32.add (local.get $in) (i32.const 26)) (local.get $end)))
        ;; {"log":"
        (br_if $stop (i64.ne (i64.load (local.get $in)) (i64.const 2466321573585101435)))
        (local.set $in (i32.add (local.get $in) (i32.const 8)))
        (if (i32.and (local.get $flags) (i32.const 4)) (then (local.set $out (i32.add (local.get $out) (i32.const 8)))))
        ;; the text, 32 bytes at a time (16 near the end) up to a quote, a backslash or a newline
        (block $text
          (loop $more
            (local.set $rem (i32.sub (local.get $end) (local.get $in)))
            (br_if $stop (i32.le_s (local.get $rem) (i32.const 0)))
            (local.set $v (v128.load (local.get $in)))
            (local.set $m
              (i8x16.bitmask
                (v128.or
                  (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a))))))
            (if (i32.lt_u (local.get $rem) (i32.const 16))
              (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $rem)) (i32.const 1))))))
            (v128.store (local.get $out) (local.get $v))
            (if (i32.eqz (local.get $m))
              (then
                (br_if $stop (i32.lt_u (local.get $rem) (i32.const 16)))
                (if (i32.lt_u (local.get $rem) (i32.const 32))
                  (then
                    (local.set $in (i32.add (local.get $in) (i32.const 16)))
                    (local.set $out (i32.add (local.get $out) (i32.const 16)))
                    (br $more)))
                ;; the next 16 in the same turn
                (local.set $v (v128.load offset=16 (local.get $in)))
                (v128.store offset=16 (local.get $out) (local.get $v))
                (local.set $m
                  (i32.shl
                    (i8x16.bitmask
                      (v128.or
                        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
                        (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))))
                    (i32.const 16)))
                (if (i32.eqz (local.get $m))
                  (then
                    (local.set $in (i32.add (local.get $in) (i32.const 32)))
                    (local.set $out (i32.add (local.get $out) (i32.const 32)))
                    (br $more)))))
            (local.set $k (i32.ctz (local.get $m)))
            (local.set $in (i32.add (local.get $in) (local.get $k)))
            (local.set $out (i32.add (local.get $out) (local.get $k)))
            (local.set $c (i32.load8_u (local.get $in)))
            (if (i32.eq (local.get $c) (i32.const 0x22))
              (then
                (local.set $in (i32.add (local.get $in) (i32.const 1)))
                (br $text)))
            (br_if $stop (i32.eq (local.get $c) (i32.const 0x0a)))
            ;; a backslash: the escape (its bytes are before the line's newline, or the line is malformed)
            (br_if $stop (i32.gt_u (i32.add (local.get $in) (i32.const 6)) (local.get $end)))
            (local.set $c (i32.load8_u offset=1 (local.get $in)))
            ;; \n first: every line of berth's ends with it, and the text's closing quote right after it
            (if (i32.eq (local.get $c) (i32.const 0x6e))
              (then
                (i32.store8 (local.get $out) (i32.const 0x0a))
                (local.set $out (i32.add (local.get $out) (i32.const 1)))
                (local.set $in (i32.add (local.get $in) (i32.const 2)))
                (br_if $more (i32.ne (i32.load8_u (local.get $in)) (i32.const 0x22)))
                (local.set $in (i32.add (local.get $in) (i32.const 1)))
                (br $text)))
            (local.set $cp (i32.const -1))
            (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c))) (i32.eq (local.get $c) (i32.const 0x2f)))
              (then (local.set $cp (local.get $c))))
            (if (i32.eq (local.get $c) (i32.const 0x74)) (then (local.set $cp (i32.const 0x09))))
            (if (i32.eq (local.get $c) (i32.const 0x72)) (then (local.set $cp (i32.const 0x0d))))
            (if (i32.eq (local.get $c) (i32.const 0x62)) (then (local.set $cp (i32.const 0x08))))
            (if (i32.eq (local.get $c) (i32.const 0x66)) (then (local.set $cp (i32.const 0x0c))))
            (if (i32.ge_s (local.get $cp) (i32.const 0))
              (then
                (i32.store8 (local.get $out) (local.get $cp))
                (local.set $out (i32.add (local.get $out) (i32.const 1)))
                (local.set $in (i32.add (local.get $in) (i32.const 2)))
                (br $more)))
            (br_if $stop (i32.ne (local.get $c) (i32.const 0x75)))
            ;; \uXXXX
            (local.set $cp (call $hex (i32.load8_u offset=2 (local.get $in))))
            (local.set $k (call $hex (i32.load8_u offset=3 (local.get $in))))
            (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 4)) (local.get $k)))
            (local.set $k (call $hex (i32.load8_u offset=4 (local.get $in))))
            (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 4)) (local.get $k)))
            (local.set $k (call $hex (i32.load8_u offset=5 (local.get $in))))
            (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 4)) (local.get $k)))
            ;; an invalid digit made it negative; surrogates are left to the caller
            (br_if $stop (i32.lt_s (local.get $cp) (i32.const 0)))
            (br_if $stop (i32.eq (i32.and (local.get $cp) (i32.const 0xf800)) (i32.const 0xd800)))
            (local.set $in (i32.add (local.get $in) (i32.const 6)))
            (if (i32.lt_u (local.get $cp) (i32.const 0x80))
              (then
                (i32.store8 (local.get $out) (local.get $cp))
                (local.set $out (i32.add (local.get $out) (i32.const 1)))
                (br $more)))
            (if (i32.lt_u (local.get $cp) (i32.const 0x800))
              (then
                (i32.store8 (local.get $out) (i32.or (i32.const 0xc0) (i32.shr_u (local.get $cp) (i32.const 6))))
                (i32.store8 offset=1 (local.get $out) (i32.or (i32.const 0x80) (i32.and (local.get $cp) (i32.const 0x3f))))
                (local.set $out (i32.add (local.get $out) (i32.const 2)))
                (br $more)))
            (i32.store8 (local.get $out) (i32.or (i32.const 0xe0) (i32.shr_u (local.get $cp) (i32.const 12))))
            (i32.store8 offset=1 (local.get $out) (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $cp) (i32.const 6)) (i32.const 0x3f))))
            (i32.store8 offset=2 (local.get $out) (i32.or (i32.const 0x80) (i32.and (local.get $cp) (i32.const 0x3f))))
            (local.set $out (i32.add (local.get $out) (i32.const 3)))
            (br $more)))
        ;; ,"stream":"stdout" or ,"stream":"stderr"
        (br_if $stop (i32.gt_u (i32.add (local.get $in) (i32.const 20)) (local.get $end)))
        (br_if $stop (i64.ne (i64.load (local.get $in)) (i64.const 7881692365129458220)))
        (br_if $stop (i64.ne (i64.load offset=6 (local.get $in)) (i64.const 7238537091932646753)))
        (local.set $c (i32.load offset=14 (local.get $in)))
        (local.set $type (i32.const 0))
        (if (i32.eq (local.get $c) (i32.const 578057583)) (then (local.set $type (i32.const 1))))
        (if (i32.eq (local.get $c) (i32.const 577925733)) (then (local.set $type (i32.const 2))))
        (br_if $stop (i32.eqz (local.get $type)))
        (local.set $in (i32.add (local.get $in) (i32.const 18)))
        ;; the rest of the line (time, attrs) up to its newline, which a closing brace precedes
        (br_if $stop (i32.ne (i32.load8_u (local.get $in)) (i32.const 0x2c)))
        (block $eol
          ;; berth's own layout: `,"time":"`, a time of 30 bytes and `"}`, so the newline 41 bytes on, and the first
          ;; one (three blocks looked at at once rather than scanned one by one)
          (if (i32.ge_s (i32.sub (local.get $end) (local.get $in)) (i32.const 42))
            (then
              (local.set $v (i8x16.splat (i32.const 0x0a)))
              (if (i32.and
                    (i32.eqz (v128.any_true (v128.or (i8x16.eq (v128.load (local.get $in)) (local.get $v)) (i8x16.eq (v128.load offset=16 (local.get $in)) (local.get $v)))))
                    (i32.eq (i8x16.bitmask (i8x16.eq (v128.load offset=26 (local.get $in)) (local.get $v))) (i32.const 0x8000)))
                (then
                  (local.set $in (i32.add (local.get $in) (i32.const 41)))
                  (br $eol)))))
          (loop $scan
            (local.set $rem (i32.sub (local.get $end) (local.get $in)))
            (br_if $stop (i32.le_s (local.get $rem) (i32.const 0)))
            (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $in)) (i8x16.splat (i32.const 0x0a)))))
            (if (i32.lt_u (local.get $rem) (i32.const 16))
              (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $rem)) (i32.const 1))))))
            (if (local.get $m)
              (then
                (local.set $in (i32.add (local.get $in) (i32.ctz (local.get $m))))
                (br $eol)))
            (br_if $stop (i32.lt_u (local.get $rem) (i32.const 16)))
            (local.set $in (i32.add (local.get $in) (i32.const 16)))
            (br $scan)))
        (br_if $stop (i32.ne (i32.load8_u offset=0 (i32.sub (local.get $in) (i32.const 1))) (i32.const 0x7d)))
        (local.set $in (i32.add (local.get $in) (i32.const 1)))
        (if (i32.eqz (i32.and (local.get $flags) (local.get $type)))
          (then
            (local.set $out (local.get $hdr))
            (br $lines)))
        (if (i32.and (local.get $flags) (i32.const 4))
          (then
            (local.set $n (i32.sub (i32.sub (local.get $out) (local.get $hdr)) (i32.const 8)))
            ;; type, 0, 0, 0 then the length big-endian
            (i32.store (local.get $hdr) (local.get $type))
            (i32.store offset=4 (local.get $hdr)
              (i32.or
                (i32.or (i32.shl (local.get $n) (i32.const 24)) (i32.shl (i32.and (local.get $n) (i32.const 0xff00)) (i32.const 8)))
                (i32.or (i32.and (i32.shr_u (local.get $n) (i32.const 8)) (i32.const 0xff00)) (i32.shr_u (local.get $n) (i32.const 24)))))))
        (br $lines)))
    (i32.store (i32.const 0) (local.get $line))
    (i32.sub (local.get $hdr) (local.get $start)))
  ;; A live follower's framing (see LineFramer in jsonlog.ts; its own instance): the $len bytes at $in, a frame per
  ;; line at $out (8-byte header: $type, 3 zero bytes, big-endian length; the newline ends its frame; a last line
  ;; without one is a frame of its own), 16 bytes at a time. Returns the output's length. The caller leaves 16 bytes
  ;; of slack after the input and the output.
  (func (export "frame") (param $in i32) (param $len i32) (param $out i32) (param $type i32) (result i32)
    (local $end i32) (local $start i32) (local $hp i32) (local $v v128) (local $m i32) (local $rem i32) (local $k i32) (local $n i32)
    (local.set $end (i32.add (local.get $in) (local.get $len)))
    (local.set $start (local.get $out))
    ;; $hp: the open frame's header, written when its line ends
    (local.set $hp (local.get $out))
    (local.set $out (i32.add (local.get $out) (i32.const 8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $rem (i32.sub (local.get $end) (local.get $in)))
        (local.set $v (v128.load (local.get $in)))
        (local.set $m (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))))
        (if (i32.lt_u (local.get $rem) (i32.const 16))
          (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $rem)) (i32.const 1))))))
        (v128.store (local.get $out) (local.get $v))
        (if (i32.eqz (local.get $m))
          (then
            (local.set $k (select (i32.const 16) (local.get $rem) (i32.ge_u (local.get $rem) (i32.const 16))))
            (local.set $in (i32.add (local.get $in) (local.get $k)))
            (local.set $out (i32.add (local.get $out) (local.get $k)))
            (br $next)))
        ;; the line ends with this block's first newline: its frame is closed, the next one opened after it
        (local.set $k (i32.add (i32.ctz (local.get $m)) (i32.const 1)))
        (local.set $in (i32.add (local.get $in) (local.get $k)))
        (local.set $out (i32.add (local.get $out) (local.get $k)))
        (local.set $n (i32.sub (i32.sub (local.get $out) (local.get $hp)) (i32.const 8)))
        (i32.store (local.get $hp) (local.get $type))
        (i32.store offset=4 (local.get $hp)
          (i32.or
            (i32.or (i32.shl (local.get $n) (i32.const 24)) (i32.shl (i32.and (local.get $n) (i32.const 0xff00)) (i32.const 8)))
            (i32.or (i32.and (i32.shr_u (local.get $n) (i32.const 8)) (i32.const 0xff00)) (i32.shr_u (local.get $n) (i32.const 24)))))
        (local.set $hp (local.get $out))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $next)))
    ;; the frame opened last: empty after a final newline (dropped), else the last line's
    (local.set $n (i32.sub (i32.sub (local.get $out) (local.get $hp)) (i32.const 8)))
    (if (i32.eqz (local.get $n))
      (then (local.set $out (local.get $hp)))
      (else
        (i32.store (local.get $hp) (local.get $type))
        (i32.store offset=4 (local.get $hp)
          (i32.or
            (i32.or (i32.shl (local.get $n) (i32.const 24)) (i32.shl (i32.and (local.get $n) (i32.const 0xff00)) (i32.const 8)))
            (i32.or (i32.and (i32.shr_u (local.get $n) (i32.const 8)) (i32.const 0xff00)) (i32.shr_u (local.get $n) (i32.const 24)))))))
    (i32.sub (local.get $out) (local.get $start)))
)
