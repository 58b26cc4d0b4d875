// Rows whose stored JSON is no JSON object (a question's choices: no array; its reply_by: no time): a
// crafted restore, or a file edited by hand. They are read as damaged wherever they are used
// (base/stored-json.ts), never a 500 and never the end of an owner's view; this names them, once,
// when the server starts and when `restore` brings a file in.

import type { DatabaseSync } from 'node:sqlite';

/** SQL: whether a column holds a JSON object. */
export const IS_OBJECT = (column: string) =>
  `CASE WHEN json_valid(${column}) THEN json_type(${column}) = 'object' ELSE 0 END`; // json_type throws on no JSON
const MAX_NAMED = 20; // rows named at most; the count says how many more
const MAX_NAME_LENGTH = 80; // characters of a row's name: a crafted file's slug may be of any length

/** What is named, and the query that finds it. */
export const DAMAGED_QUERIES = [
  ['listing', `SELECT slug AS name FROM listings WHERE NOT ${IS_OBJECT('listing')}`],
  ["conversation's metadata", `SELECT id AS name FROM conversations WHERE NOT ${IS_OBJECT('metadata')}`],
  ['outbox event', `SELECT id AS name FROM outbox WHERE NOT ${IS_OBJECT('event')}`],
  ['setting', `SELECT name FROM settings WHERE name = 'quotas' AND NOT ${IS_OBJECT('value')}`],
  // Only questions are read, through their partial index (migration 9), never every message.
  [
    "question's choices",
    `SELECT conversation_id || ' #' || seq AS name FROM messages
     WHERE (choices IS NOT NULL OR reply_by IS NOT NULL) AND choices IS NOT NULL
       AND NOT CASE WHEN json_valid(choices) THEN json_type(choices) = 'array' ELSE 0 END`,
  ],
  [
    "question's reply_by",
    `SELECT conversation_id || ' #' || seq AS name FROM messages
     WHERE (choices IS NOT NULL OR reply_by IS NOT NULL) AND reply_by IS NOT NULL AND julianday(reply_by) IS NULL`,
  ],
] as const;

/** One line per damaged row (`listing osv-api`), at most MAX_NAMED, then how many more there are. */
export function damagedRows(db: DatabaseSync): string[] {
  const found = DAMAGED_QUERIES.flatMap(([what, sql]) =>
    (db.prepare(`${sql} ORDER BY name`).all() as { name: string }[]).map((row) => `${what} ${named(row.name)}`),
  );
  const more = found.length > MAX_NAMED ? [`and ${found.length - MAX_NAMED} more`] : [];
  return [...found.slice(0, MAX_NAMED), ...more];
}

/** A row's name, cut (by code points) at MAX_NAME_LENGTH. */
function named(name: string): string {
  const characters = [...name];
  return characters.length > MAX_NAME_LENGTH ? `${characters.slice(0, MAX_NAME_LENGTH - 1).join('')}…` : name;
}
