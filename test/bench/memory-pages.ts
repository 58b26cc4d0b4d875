// Which parts of the node binary a process keeps resident: its mapped pages that are present
// (/proc/<pid>/pagemap), each page's bytes given to the symbols it holds (`nm` of the binary,
// which ships with its symbols) or, between symbols, to its ELF section (`readelf`). File pages
// count in RSS like any other, although every node process on the machine shares them.

import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const PAGE = 4096;

interface Span {
  readonly start: number;
  readonly size: number;
  readonly name: string;
}

// The first matching line names a symbol's part; the order matters (a wasm builtin is a builtin).
const PARTS: readonly (readonly [RegExp, string])[] = [
  [/^icudt\d+_dat$/, 'ICU data'],
  [/^(Builtins_|v8_Default_embedded_blob)/, 'V8 builtins'],
  [/^v8::internal::(compiler|turboshaft)::/, 'V8 TurboFan'],
  [/^v8::internal::maglev::/, 'V8 Maglev'],
  [/^v8::internal::wasm::/, 'V8 WebAssembly'],
  [/^(v8|cppgc|heap::base)::|v8::internal::/, 'V8, the rest'],
  [/^(icu_\d+::|u[a-z0-9]*_\w)/, 'ICU code'],
  [/sqlite3/i, 'SQLite'],
  [/^(ossl_|OSSL_|EVP_|SSL|BN_|CRYPTO_|OPENSSL_|ERR_|X509|ASN1_|EC_|RSA_|OBJ_|BIO_|PEM_|aesni_|sha\d|SHA\d)/,
    'OpenSSL'],
  [/^node::/, 'Node C++'],
  [/^(uv_|uv__)/, 'libuv'],
  [/^ada::/, 'ada (URLs)'],
  [/^(simdutf|simdjson)::/, 'simdutf, simdjson'],
];

function partOf(symbol: string): string {
  for (const [pattern, part] of PARTS) if (pattern.test(symbol)) return part;
  return 'other code and data';
}

/** The binary's symbols with a size, sorted by address (the binary is not position-independent). */
function symbolsOf(binary: string): Span[] {
  const text = execFileSync('nm', ['-n', '-S', '-C', '--defined-only', binary], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const spans: Span[] = [];
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) \w (.*)$/.exec(line);
    if (match) spans.push({ start: parseInt(match[1]!, 16), size: parseInt(match[2]!, 16), name: partOf(match[3]!) });
  }
  return spans.sort((a, b) => a.start - b.start);
}

function sectionsOf(binary: string): Span[] {
  const text = execFileSync('readelf', ['-SW', binary], { encoding: 'utf8' });
  const spans: Span[] = [];
  for (const line of text.split('\n')) {
    const match = /\]\s+(\S+)\s+\S+\s+([0-9a-f]{16})\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(line);
    if (match && parseInt(match[2]!, 16) > 0) {
      spans.push({ start: parseInt(match[2]!, 16), size: parseInt(match[3]!, 16), name: `no symbol (${match[1]})` });
    }
  }
  return spans;
}

/** Reads the symbols once; then `of(pid)` gives MiB resident per part of the binary. */
export function binaryPages(binary: string) {
  const symbols = symbolsOf(binary);
  const sections = sectionsOf(binary);
  const sectionOf = (page: number) =>
    sections.find((s) => page >= s.start && page < s.start + s.size)?.name ?? 'no symbol, no section';
  return {
    of(pid: number): Map<string, number> {
      const bytes = new Map<string, number>();
      const add = (part: string, n: number) => bytes.set(part, (bytes.get(part) ?? 0) + n);
      let first = 0; // symbols are sorted and pages come in address order: each search starts where the last ended
      for (const page of presentPages(pid, binary)) {
        while (first < symbols.length && symbols[first]!.start + symbols[first]!.size <= page) first++;
        let covered = 0;
        let cursor = page; // a byte is given once, to the first symbol that holds it (aliases overlap)
        for (let i = first; i < symbols.length && symbols[i]!.start < page + PAGE; i++) {
          const { start, size, name } = symbols[i]!;
          const from = Math.max(start, cursor);
          const to = Math.min(start + size, page + PAGE);
          if (to > from) {
            add(name, to - from);
            covered += to - from;
            cursor = to;
          }
        }
        if (covered < PAGE) add(sectionOf(page), PAGE - covered); // between symbols: the section's

      }
      return new Map([...bytes].map(([part, n]) => [part, n / 2 ** 20]));
    },
  };
}

/** The addresses of the binary's pages present in the process's memory. */
function presentPages(pid: number, binary: string): number[] {
  const ranges = readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith(` ${binary}`))
    .map((line) => line.split(' ')[0]!.split('-').map((hex) => parseInt(hex, 16)) as [number, number]);
  const pages: number[] = [];
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    for (const [start, end] of ranges) {
      const count = (end - start) / PAGE;
      const entries = Buffer.alloc(count * 8); // one 64-bit entry a page; bit 63: present
      readSync(fd, entries, 0, entries.length, (start / PAGE) * 8);
      for (let i = 0; i < count; i++) if (entries.readBigUInt64LE(i * 8) >> 63n) pages.push(start + i * PAGE);
    }
  } finally {
    closeSync(fd);
  }
  return pages;
}
