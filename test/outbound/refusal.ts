// The assertion the outbound tests share: a refusal of the outbound guard, naming its rule.

import assert from 'node:assert/strict';
import { OutboundRefusal } from '../../src/outbound/guard.ts';

export function assertRefusal(rule: string, message: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof OutboundRefusal, `expected an OutboundRefusal, got ${String(err)}`);
    assert.equal(err.rule, rule);
    assert.match(err.message, message);
    return true;
  };
}
