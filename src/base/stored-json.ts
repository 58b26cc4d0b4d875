// Values the service stored as JSON (a listing, a conversation's metadata, an outbox event, a recorded
// setting), read back. The service wrote them, but a crafted restore or a file edited by hand may hold
// one that does not parse, or is not the object it should be: such a value is read as undefined, never
// thrown, so its row is shown as damaged and the rest is served. Start-up and `restore` name damaged
// rows once (store/damaged.ts damagedRows).

/** A stored JSON object, or undefined when the value does not parse or is no object. */
export function storedObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A conversation's stored metadata: its string values, or undefined when damaged. */
export function storedMetadata(text: string): Record<string, string> | undefined {
  const value = storedObject(text);
  if (value === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
