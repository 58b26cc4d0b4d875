// The A2A operations, the same for both bindings: each reads its params and calls the rules
// REST and MCP call (conversations.ts through app.open and app.followUp, the poll clock,
// the push targets of rules/push.ts). The door decides no rule of its own: a refusal comes from
// the catalogue and is only named as A2A names it (errors.ts).

import type { App } from '../../runtime/app.ts';
import type { AlsoWrite } from '../../runtime/client-writes.ts';
import { takePoll } from '../../runtime/polls.ts';
import { pushConfigOf, pushConfigsOf, registerPushConfig, removePushConfig } from '../../rules/push.ts';
import type { ClientContext } from '../context.ts';
import { checkRegisteredUrl, checkStaticUrl } from '../../outbound/guard.ts';
import { refuse } from '../../refusals/refusal.ts';
import type { Conversation } from '../../store/store.ts';
import type { PushTarget } from '../../store/outbox.ts';
import { a2aRefusal } from './errors.ts';
import {
  historyLengthOf,
  inboundMessage,
  integerMember,
  invalid,
  member,
  objectMember,
  openingMetadata,
  ownTask,
  pushConfigInput,
  refuseTenant,
  stringMember,
} from './params.ts';
import { note, taskOf } from './tasks.ts';

type Json = Record<string, unknown>;

/** One call: the request, the conversation its credential opens (null: none sent), and its params. */
export interface A2aCall {
  readonly ctx: ClientContext;
  readonly holder: Conversation | null;
  readonly params: Json;
}

const unsupported = (what: string) =>
  a2aRefusal('unsupported_operation',
    `${what} is not supported: a human answers hours later; poll the task or register a push notification config.`,
  );

/** The credential's conversation, for the operations that need one (checked after params and capability). */
function holderOf(call: A2aCall): Conversation {
  if (call.holder === null) throw refuse('no_credential');
  return call.holder;
}

/** SendMessage: without a credential, an opening; with one, a follow-up in its conversation. */
export async function sendMessage(call: A2aCall) {
  const { ctx, params } = call;
  const { app } = ctx;
  refuseTenant(params);
  const inbound = inboundMessage(params);
  const configuration = objectMember(params, 'configuration');
  const historyLength = historyLengthOf(configuration);
  const register = pushRegistration(app, objectMember(configuration, 'taskPushNotificationConfig'));
  if (call.holder === null) {
    if (inbound.taskId !== undefined || inbound.contextId !== undefined) throw refuse('no_credential');
    const { text: message, key, question } = inbound;
    const opening = { message, metadata: openingMetadata(params), key, question };
    const opened = await app.open(opening, ctx.client, register);
    return { task: openedTask(app, opened.id, opened.access_token, historyLength) };
  }
  const conversation = call.holder;
  if (inbound.taskId !== undefined) ownTask(conversation, inbound.taskId);
  if (inbound.contextId !== undefined && inbound.contextId.toLowerCase() !== conversation.id) {
    throw invalid("`message.contextId` must be the task's contextId (its id), or absent.");
  }
  const result = await app.followUp(
    conversation,
    { message: inbound.text, key: inbound.key, question: inbound.question },
    ctx.client,
    register,
  );
  const now = app.store.conversationById(conversation.id) as Conversation;
  return { task: taskOf(app, now, historyLength, result.duplicate ? { duplicate: true } : {}) };
}

/** The opening's task: WORKING, with the credential in its metadata and in the note, this once. */
function openedTask(app: App, id: string, token: string, historyLength: number) {
  const conversation = app.store.conversationById(id) as Conversation;
  const task = taskOf(app, conversation, historyLength, { accessToken: token, tokenType: 'Bearer' });
  const text =
    'Delivered to the owner, who answers by hand, often hours later. Keep this task id, and send ' +
    `Authorization: Bearer ${token} with every later request: it is shown only this once, and opens this task ` +
    `only. With the SDK's sample terminal client, restart it with --auth "Bearer ${token}".`;
  return { ...task, status: { ...task.status, message: note(id, conversation.last_seq, text) } };
}

/** GetTask: a poll, on the conversation's one poll clock, whichever door polls. */
export function getTask(call: A2aCall) {
  const { app } = call.ctx;
  refuseTenant(call.params);
  const historyLength = historyLengthOf(call.params);
  const conversation = holderOf(call);
  ownTask(conversation, member(call.params, 'id'));
  takePoll(app, conversation, 0, 0); // a task shows the whole conversation: its news is all there is
  return taskOf(app, conversation, historyLength);
}

/** A2A's task states (a2a.proto's TaskState); this service uses three of them. */
const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
];

/** ListTasks: the credential's one task, if it passes the filters; a poll too. */
export function listTasks(call: A2aCall) {
  const { app } = call.ctx;
  const { params } = call;
  refuseTenant(params);
  if (member(params, 'pageToken') !== undefined)
    throw invalid('`pageToken` must be empty: there is one page.');
  const pageSize = integerMember(params, 'pageSize', 1, 100) ?? 50;
  const historyLength = historyLengthOf(params);
  const status = stringMember(params, 'status');
  const ignored = [undefined, 'UNRECOGNIZED', 'TASK_STATE_UNSPECIFIED'];
  if (!ignored.includes(status) && !TASK_STATES.includes(status as string)) {
    throw invalid(`\`status\` must be one of A2A's task states: ${TASK_STATES.join(', ')}.`);
  }
  const after = stringMember(params, 'statusTimestampAfter');
  if (after !== undefined && Number.isNaN(Date.parse(after))) {
    throw invalid('`statusTimestampAfter` must be an ISO 8601 time.');
  }
  const conversation = holderOf(call);
  takePoll(app, conversation, 0, 0); // a task shows the whole conversation: its news is all there is
  const task = taskOf(app, conversation, historyLength);
  const contextId = stringMember(params, 'contextId');
  const passes =
    (contextId === undefined || contextId.toLowerCase() === conversation.id) &&
    (ignored.includes(status) || status === task.status.state) &&
    (after === undefined || Date.parse(task.status.timestamp) >= Date.parse(after));
  return { tasks: passes ? [task] : [], nextPageToken: '', pageSize, totalSize: passes ? 1 : 0 };
}

/** CancelTask: the agent closes its conversation (TASK_STATE_CANCELED); a closed one is answered as it is. */
export async function cancelTask(call: A2aCall) {
  refuseTenant(call.params);
  const conversation = holderOf(call);
  ownTask(conversation, member(call.params, 'id'));
  const closed = await call.ctx.app.close(conversation);
  return taskOf(call.ctx.app, closed, historyLengthOf(call.params));
}

// Params before capability: a bad tenant is refused before the operation is found unsupported.
export function unsupportedStream(call: A2aCall): never {
  refuseTenant(call.params);
  throw unsupported('Streaming');
}
export function unsupportedExtendedCard(call: A2aCall): never {
  refuseTenant(call.params);
  throw a2aRefusal('unsupported_operation', 'This agent has no extended agent card.');
}

/**
 * Create: the config's form and its URL's static rules are judged with the params, then the
 * credential and the task, then whether the task has room; only then is the URL's host looked up,
 * so a request its credential or the rules refuse causes no lookup.
 */
export async function createPushConfig(call: A2aCall) {
  const { app } = call.ctx;
  refuseTenant(call.params);
  const input = pushConfigInput(call.params);
  checkStaticUrl(input.url, app.outboundPolicy);
  const conversation = holderOf(call);
  ownTask(conversation, input.taskId ?? member(call.params, 'taskId'));
  app.store.rehearse(() => registerPushConfig(app.store, conversation.id, input, app.now()));
  const checked = { ...input, url: await checkRegisteredUrl(input.url, app.outboundPolicy) };
  const target = await app.write(() => registerPushConfig(app.store, conversation.id, checked, app.now()));
  return shownConfig({ ...target, last_attempt_at: null, last_outcome: null, failures: 0 });
}

export function getPushConfig(call: A2aCall) {
  refuseTenant(call.params);
  const conversation = holderOf(call);
  ownTask(conversation, member(call.params, 'taskId'));
  return shownConfig(pushConfigOf(call.ctx.app.store, conversation.id, configId(call.params)));
}

export function listPushConfigs(call: A2aCall) {
  refuseTenant(call.params);
  const conversation = holderOf(call);
  ownTask(conversation, member(call.params, 'taskId'));
  return { configs: pushConfigsOf(call.ctx.app.store, conversation.id).map(shownConfig), nextPageToken: '' };
}

export async function deletePushConfig(call: A2aCall) {
  const { app } = call.ctx;
  refuseTenant(call.params);
  const conversation = holderOf(call);
  ownTask(conversation, member(call.params, 'taskId'));
  await app.write(() => removePushConfig(app.store, conversation.id, configId(call.params)));
  return {};
}

function configId(params: Json): string {
  const id = stringMember(params, 'id');
  if (id === undefined) throw invalid('`id` (the push notification config id) is required.');
  return id;
}

/** A config as it is shown again: never its token or credentials, only the scheme. */
function shownConfig(target: PushTarget) {
  return {
    id: target.config_id,
    taskId: target.conversation_id,
    url: target.url,
    ...(target.auth_scheme !== null && { authentication: { scheme: target.auth_scheme } }),
  };
}

/**
 * SendMessage's push config, written with its message: its form and its URL's static rules are
 * judged now, as the message's are; where its host resolves only once the message's own rule
 * (idempotency, state, quotas) would accept it, so a refused message causes no lookup.
 */
function pushRegistration(app: App, config: Json): AlsoWrite | undefined {
  if (Object.keys(config).length === 0) return undefined;
  const input = pushConfigInput(config);
  checkStaticUrl(input.url, app.outboundPolicy);
  return async () => {
    const push = { ...input, url: await checkRegisteredUrl(input.url, app.outboundPolicy) };
    return (id: string) => void registerPushConfig(app.store, id, push, app.now());
  };
}
