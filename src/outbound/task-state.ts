// A conversation's status as an A2A task's state: the A2A pushes (deliveries.ts) and the A2A door
// name it the same way. A block has no state (the door answers 403), nor does an expiry.

import type { ConversationStatus } from '../base/contract.ts';

export type TaskState =
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_CANCELED';

/**
 * open: the owner's turn (working); answered: the agent's turn (input required); closed by the owner:
 * completed; closed by its agent (CancelTask, or a close through another door): canceled.
 */
export function taskState(status: string, closedBy: string | null): TaskState {
  if (status === 'closed' && closedBy === 'agent') return 'TASK_STATE_CANCELED';
  const states: Record<ConversationStatus, TaskState> = {
    open: 'TASK_STATE_WORKING',
    answered: 'TASK_STATE_INPUT_REQUIRED',
    closed: 'TASK_STATE_COMPLETED',
  };
  return states[status as ConversationStatus];
}
