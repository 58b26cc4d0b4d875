// Sites: one registrable domain is one party, however many hosts it names. An identity's site is the
// registrable domain of its host (eTLD+1, as browsers decide it) by the Public Suffix List, a dated
// copy of which is shipped in data/public-suffix-list.dat and read once, at first use: its ICANN and
// private rules alike (x.github.io is a site of its own), wildcard rules (*.ck) and exceptions
// (!www.ck). A host that no rule names has its last label as public suffix (the list's rule "*");
// a host on an IP address, and a host that is itself a public suffix, are their own site. Finding a
// site is a few hash lookups, one per label of the host.

import { readFileSync } from 'node:fs';
import { domainToASCII } from 'node:url';

const LIST_FILE = new URL('../../data/public-suffix-list.dat', import.meta.url);

/** The rules of the list, each in ASCII (an IDN rule as its xn-- form), as hosts are compared. */
export interface SuffixList {
  /** the day the shipped copy was taken, YYYY-MM-DD */
  readonly date: string;
  readonly rules: ReadonlySet<string>;
  /** the suffixes under a `*.` rule: `ck` for `*.ck` */
  readonly wildcards: ReadonlySet<string>;
  /** the rules after their `!`: `www.ck` for `!www.ck` */
  readonly exceptions: ReadonlySet<string>;
}

/** The list's text as rules; throws an Error when it holds none, or no date. */
export function parseSuffixList(text: string): SuffixList {
  const date = /^\/\/ Date: (\d{4}-\d{2}-\d{2})$/m.exec(text)?.[1];
  if (date === undefined) throw new Error('the Public Suffix List file has no "// Date: YYYY-MM-DD" line');
  const rules = new Set<string>();
  const wildcards = new Set<string>();
  const exceptions = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('//')) continue;
    if (line.startsWith('!')) exceptions.add(domainToASCII(line.slice(1)));
    else if (line.startsWith('*.')) wildcards.add(domainToASCII(line.slice(2)));
    else rules.add(domainToASCII(line));
  }
  if (rules.size === 0) throw new Error('the Public Suffix List file holds no rules');
  return { date, rules, wildcards, exceptions };
}

let shipped: SuffixList | undefined;

/** The shipped list, read on first use (the server reads it at start-up, so a missing file stops it there). */
export function suffixList(): SuffixList {
  shipped ??= parseSuffixList(readFileSync(LIST_FILE, 'utf8'));
  return shipped;
}

/**
 * The site of a host as a URL gives it (lower case, ASCII, an IPv6 address in brackets): its
 * registrable domain, or the host itself when it is an IP address or a public suffix.
 */
export function siteOfHost(host: string, list: SuffixList = suffixList()): string {
  if (host.startsWith('[') || /^[\d.]+$/.test(host)) return host; // an address: a URL writes IPv4 in digits
  const labels = host.split('.');
  const suffixAt = (from: number) => labels.slice(from).join('.');
  // Longest candidate first, so the first rule met is the one with the most labels; an exception is
  // met before the wildcard it excepts (it has one label more), and its suffix is itself less one label.
  let suffixStart = labels.length - 1; // no rule: the list's rule "*", the last label
  for (let i = 0; i < labels.length - 1; i++) {
    if (list.exceptions.has(suffixAt(i))) {
      suffixStart = i + 1;
      break;
    }
    if (list.rules.has(suffixAt(i)) || list.wildcards.has(suffixAt(i + 1))) {
      suffixStart = i;
      break;
    }
  }
  return suffixStart === 0 ? host : suffixAt(suffixStart - 1);
}

/** The site of an identity (an https origin or URL, as identities are written). */
export function siteOf(identity: string): string {
  const url = URL.parse(identity); // a stored identity that is no URL (a damaged row) is its own site
  return url === null ? identity : siteOfHost(url.hostname);
}
