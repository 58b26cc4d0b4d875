// A conversation's status as an A2A task's state (src/outbound/task-state.ts), as the A2A door and its
// push notifications name it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { taskState } from '../../src/outbound/task-state.ts';

test('each status, and who closed a closed one, is one task state', () => {
  const table: [status: string, closedBy: string | null, state: string][] = [
    ['open', null, 'TASK_STATE_WORKING'],
    ['answered', null, 'TASK_STATE_INPUT_REQUIRED'],
    ['closed', 'owner', 'TASK_STATE_COMPLETED'],
    ['closed', 'agent', 'TASK_STATE_CANCELED'],
    ['closed', null, 'TASK_STATE_COMPLETED'], // closed before who closed it was kept: only the owner could
  ];
  for (const [status, closedBy, state] of table) {
    assert.equal(taskState(status, closedBy), state, `${status} closed by ${closedBy}`);
  }
});
