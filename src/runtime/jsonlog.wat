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
;;   2048… input, then output (the caller leaves 16 bytes of slack after each: blocks are read and written whole)
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
            (memory.copy (local.get $out) (i32.const 1024) (local.get $seq))
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
    (i32.sub (local.get $out) (local.get $start))))
