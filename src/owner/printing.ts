// How the owner's commands print who wrote, times and counts; every agent string goes through
// base/terminal.ts.

import { storedMetadata } from '../base/stored-json.ts';
import { senderLabel, shown } from '../base/terminal.ts';
import { isContact } from '../rules/contacts.ts';
import type { Message, Store } from '../store/store.ts';

/** The self-declared name; null when none was given, or the stored metadata is damaged. */
export function agentName(metadata: string): string | null {
  return storedMetadata(metadata)?.agent_name ?? null;
}

/** Who wrote, for the terminal: the declared name and `verified: <identity>`, `contact: …` or `(unverified)`. */
export function agentLabel(store: Store, metadata: string, verifiedAgent: string | null): string {
  return senderLabel(agentName(metadata), verifiedAgent, isContact(store, verifiedAgent));
}

/** `2 (Wednesday) for question #3`: the choice an owner message made, its text shown as agents' text is. */
export function chosenWords(message: Message): string {
  const number = (message.choice_index ?? 0) + 1;
  return `${number} (${shown(message.choice_text ?? '')}) for question #${message.choice_for_seq}`;
}

/** For JSON: the exact characters, whitespace folded and cut. The terminal uses shownShort instead. */
export function oneLine(text: string, max: number): string {
  const flat = [...text.replace(/\s+/g, ' ').trim()]; // code points: no character is cut in half
  return flat.length > max ? `${flat.slice(0, max - 1).join('')}…` : flat.join('');
}

/** A count with its noun: `1 message`, `2 messages`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** An instant as the owner reads it: `2026-03-10 12:00:00 UTC`. */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
