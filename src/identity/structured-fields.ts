// The part of RFC 8941 (Structured Field Values) that Signature-Input, Signature and Signature-Agent
// need: a Dictionary parsed strictly (§4.2), and an Inner List, an Item and a String serialized
// strictly (§4.1) for the signature base. A value that does not parse is refused with a HeaderProblem
// whose message says what is wrong; the caller turns it into its refusal. Bounded before parsing:
// these fields come from any client, and one of them is parsed on every request that carries it.

import { HeaderProblem } from './problems.ts';

export type BareItem =
  | { readonly type: 'integer'; readonly value: number }
  | { readonly type: 'decimal'; readonly value: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'token'; readonly value: string }
  | { readonly type: 'bytes'; readonly value: Buffer }
  | { readonly type: 'boolean'; readonly value: boolean };
/** Parameters in the order they were sent; a repeated key keeps its first place and its last value. */
export type Parameters = ReadonlyMap<string, BareItem>;
export interface Item {
  readonly kind: 'item';
  readonly value: BareItem;
  readonly params: Parameters;
}
export interface InnerList {
  readonly kind: 'inner-list';
  readonly items: readonly Item[];
  readonly params: Parameters;
}
export type Member = Item | InnerList;
export type Dictionary = ReadonlyMap<string, Member>;

export const MAX_FIELD_BYTES = 8 * 1024; // a signature and its agent take a few hundred; 8 KiB is HTTP's usual line
export const MAX_DICTIONARY_MEMBERS = 32; // one agent sends one or two signatures; 32 leaves room for proxies

const KEY_START = /^[a-z*]$/;
const KEY_REST = /^[a-z0-9_\-.*]$/;
const TOKEN_START = /^[A-Za-z*]$/;
const TOKEN_REST = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]$/;
const DIGIT = /^[0-9]$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An RFC 8941 Dictionary; throws an Error naming what does not parse. */
export function parseDictionary(field: string, name: string): Map<string, Member> {
  return new Parser(checkedSize(field, name), name).dictionary();
}

/** An RFC 8941 Item (a whole field value); throws an Error naming what does not parse. */
export function parseItemField(field: string, name: string): Item {
  const parser = new Parser(checkedSize(field, name), name);
  parser.skipSpaces();
  const item = parser.item();
  parser.skipSpaces();
  if (!parser.atEnd()) parser.fail('has text after its value');
  return item;
}

function checkedSize(field: string, name: string): string {
  if (Buffer.byteLength(field, 'latin1') > MAX_FIELD_BYTES) {
    throw new HeaderProblem(`${name} must be at most ${MAX_FIELD_BYTES} bytes`);
  }
  return field;
}

/** An Inner List with its parameters, as RFC 8941 §4.1.1.1 serializes it. */
export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(' ')})${serializeParameters(list.params)}`;
}

/** An Item with its parameters, as RFC 8941 §4.1.3 serializes it. */
export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

/** A Dictionary member's value without its key (an Item or an Inner List), as RFC 9421 §2.1.2 covers it. */
export function serializeMember(member: Member): string {
  return member.kind === 'item' ? serializeItem(member) : serializeInnerList(member);
}

/** A String as RFC 8941 §4.1.6 serializes it; the caller has a value of printable ASCII. */
export function serializeString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function serializeParameters(params: Parameters): string {
  let out = '';
  for (const [key, value] of params) {
    out += value.type === 'boolean' && value.value ? `;${key}` : `;${key}=${serializeBareItem(value)}`;
  }
  return out;
}

function serializeBareItem(bare: BareItem): string {
  switch (bare.type) {
    case 'integer':
      return String(bare.value);
    case 'decimal': {
      const rounded = Math.round(bare.value * 1000) / 1000; // at most three fractional digits, §4.1.5
      return Number.isInteger(rounded) ? `${rounded}.0` : String(rounded);
    }
    case 'string':
      return serializeString(bare.value);
    case 'token':
      return bare.value;
    case 'bytes':
      return `:${bare.value.toString('base64')}:`;
    case 'boolean':
      return bare.value ? '?1' : '?0';
  }
}

/** A cursor over one field value; every method either consumes what it names or throws. */
class Parser {
  readonly #text: string;
  readonly #name: string;
  #at = 0;

  constructor(text: string, name: string) {
    this.#text = text;
    this.#name = name;
  }

  fail(what: string): never {
    throw new HeaderProblem(`${this.#name} is not a valid structured field: ${what} (at character ${this.#at + 1})`);
  }

  atEnd(): boolean {
    return this.#at >= this.#text.length;
  }

  skipSpaces(): void {
    while (this.#peek() === ' ') this.#at++;
  }

  #skipOws(): void {
    while (this.#peek() === ' ' || this.#peek() === '\t') this.#at++;
  }

  #peek(): string {
    return this.#text[this.#at] ?? '';
  }

  /** RFC 8941 §4.2.2, with the member count bounded as it goes. */
  dictionary(): Map<string, Member> {
    const members = new Map<string, Member>();
    let count = 0;
    this.skipSpaces();
    while (!this.atEnd()) {
      if (++count > MAX_DICTIONARY_MEMBERS) {
        throw new HeaderProblem(`${this.#name} must have at most ${MAX_DICTIONARY_MEMBERS} members`);
      }
      const key = this.#key();
      if (this.#peek() === '=') {
        this.#at++;
        members.set(key, this.#member());
      } else {
        members.set(key, { kind: 'item', value: { type: 'boolean', value: true }, params: this.#parameters() });
      }
      this.#skipOws();
      if (this.atEnd()) return members;
      if (this.#peek() !== ',') this.fail('expected a comma between members');
      this.#at++;
      this.#skipOws();
      if (this.atEnd()) this.fail('a comma ends the value');
    }
    return members;
  }

  #member(): Member {
    return this.#peek() === '(' ? this.#innerList() : this.item();
  }

  #innerList(): InnerList {
    this.#at++; // the opening parenthesis
    const items: Item[] = [];
    for (;;) {
      this.skipSpaces();
      if (this.#peek() === ')') {
        this.#at++;
        return { kind: 'inner-list', items, params: this.#parameters() };
      }
      if (this.atEnd()) this.fail('an inner list is not closed');
      items.push(this.item());
      const next = this.#peek();
      if (next === '') this.fail('an inner list is not closed');
      if (next !== ' ' && next !== ')') this.fail('expected a space or ) in an inner list');
    }
  }

  item(): Item {
    const value = this.#bareItem();
    return { kind: 'item', value, params: this.#parameters() };
  }

  #parameters(): Map<string, BareItem> {
    const params = new Map<string, BareItem>();
    while (this.#peek() === ';') {
      this.#at++;
      this.skipSpaces();
      const key = this.#key();
      let value: BareItem = { type: 'boolean', value: true };
      if (this.#peek() === '=') {
        this.#at++;
        value = this.#bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  #key(): string {
    const start = this.#at;
    if (!KEY_START.test(this.#peek())) this.fail('a key must start with a lower-case letter or *');
    this.#at++;
    while (KEY_REST.test(this.#peek())) this.#at++;
    return this.#text.slice(start, this.#at);
  }

  #bareItem(): BareItem {
    const c = this.#peek();
    if (c === '-' || DIGIT.test(c)) return this.#number();
    if (c === '"') return { type: 'string', value: this.#string() };
    if (TOKEN_START.test(c)) return { type: 'token', value: this.#token() };
    if (c === ':') return { type: 'bytes', value: this.#bytes() };
    if (c === '?') return { type: 'boolean', value: this.#boolean() };
    return this.fail(c === '' ? 'a value is missing' : 'a value must be a number, string, token, :bytes: or ?0/?1');
  }

  /** RFC 8941 §4.2.4: at most 15 digits for an integer, 12 and 3 around a decimal's point. */
  #number(): BareItem {
    const match = /^(-?)([0-9]+)(?:\.([0-9]*))?/.exec(this.#text.slice(this.#at, this.#at + 20));
    if (match === null) return this.fail('a minus sign must be followed by a digit');
    const [whole, , integer = '', fraction] = match;
    if (fraction === undefined) {
      if (integer.length > 15) this.fail('an integer has more than 15 digits');
      this.#at += whole.length;
      return { type: 'integer', value: Number(whole) };
    }
    if (integer.length > 12) this.fail('a decimal has more than 12 digits before its point');
    if (fraction.length === 0 || fraction.length > 3) this.fail('a decimal must have 1 to 3 digits after its point');
    this.#at += whole.length;
    return { type: 'decimal', value: Number(whole) };
  }

  /** RFC 8941 §4.2.5: printable ASCII, with \" and \\ the only escapes. */
  #string(): string {
    this.#at++; // the opening quote
    let value = '';
    for (;;) {
      const c = this.#peek();
      if (c === '') this.fail('a string is not closed');
      this.#at++;
      if (c === '"') return value;
      if (c === '\\') {
        const escaped = this.#peek();
        if (escaped !== '"' && escaped !== '\\') this.fail('a string may only escape " and \\');
        this.#at++;
        value += escaped;
      } else if (c < ' ' || c > '~') {
        this.fail('a string holds a character that is not printable ASCII');
      } else {
        value += c;
      }
    }
  }

  #token(): string {
    const start = this.#at;
    this.#at++;
    while (TOKEN_REST.test(this.#peek())) this.#at++;
    return this.#text.slice(start, this.#at);
  }

  /** RFC 8941 §4.2.7: base64 between colons. */
  #bytes(): Buffer {
    const end = this.#text.indexOf(':', this.#at + 1);
    if (end === -1) this.fail('a byte sequence is not closed with :');
    const encoded = this.#text.slice(this.#at + 1, end);
    if (!BASE64.test(encoded)) this.fail('a byte sequence holds a character that is not base64');
    this.#at = end + 1;
    return Buffer.from(encoded, 'base64');
  }

  #boolean(): boolean {
    const digit = this.#text[this.#at + 1];
    if (digit !== '0' && digit !== '1') this.fail('a boolean must be ?0 or ?1');
    this.#at += 2;
    return digit === '1';
  }
}
