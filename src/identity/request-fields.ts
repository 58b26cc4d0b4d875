// A request's header fields as RFC 9421 reads them (§2.1): every value a field was sent with, trimmed,
// unfolded and joined by ", ". Read from Node's `req.headersDistinct`, which keeps each repeated field's
// values, where `req.headers` keeps only the first of some fields.

/** Header values by lower-case name, as `req.headersDistinct` (or `req.headers`) holds them. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

const OBS_FOLD = /[ \t]*\r?\n[ \t]+/g; // HTTP/1.1 obsolete line folding, replaced by one space (§2.1)

/** A header's values combined as §2.1 says (each trimmed, unfolded, joined by ", "), or undefined when absent. */
export function combinedField(headers: RequestHeaders, name: string): string | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const values = typeof raw === 'string' ? [raw] : raw;
  if (values.length === 0) return undefined;
  return values.map((value) => value.trim().replace(OBS_FOLD, ' ')).join(', ');
}
