// The limits an agent meets, said once in words with their numbers: the guide (contact-info,
// /llms.txt, the web page), the MCP tools' descriptions and the OpenAPI document all use
// these sentences, so that what they say is what the server enforces.

import type { RunningConfig } from '../base/config.ts';
import type { Quotas } from '../rules/quotas.ts';

const or = (value: number, text: string) => (value === 0 ? 'unlimited' : text);

/** Each limit as one sentence. */
export function limitSentences(config: RunningConfig, quotas: Quotas) {
  const { dailyMaximum, conversationShare, addressShare, siteShare, unverifiedPool, verifiedPool, ownerReserve } =
    quotas;
  const requests = config.requestLimitPerMinute;
  const shares = [
    conversationShare > 0 ? `one conversation may store at most ${conversationShare} messages` : '',
    addressShare > 0 ? `one address, unsigned, at most ${addressShare} (openings and follow-ups together)` : '',
    unverifiedPool > 0 ? `all unsigned senders together at most ${unverifiedPool}` : '',
    siteShare > 0
      ? `the verified agents of one site (requests signed with Web Bot Auth; a site is a registrable domain, ` +
        `such as agent.example for all its subdomains) at most ${siteShare}`
      : '',
    verifiedPool > 0 ? `all verified agents the owner does not know yet together at most ${verifiedPool}` : '',
    unverifiedPool > 0 || verifiedPool > 0
      ? "the owner's contacts (verified agents the owner trusts) count against neither pool nor a site's share"
      : '',
    ownerReserve > 0 ? `the last ${ownerReserve} are kept for the owner's replies` : '',
  ].filter((part) => part !== '');
  return {
    daily:
      dailyMaximum === 0
        ? 'Messages per day: unlimited.'
        : `Shared daily maximum: ${dailyMaximum} messages per UTC day for everyone together (openings, ` +
          'follow-ups, owner replies); it resets at 00:00 UTC.',
    shares:
      shares.length === 0
        ? 'No sender has a share of its own beneath the daily maximum.'
        : `Fair shares of each UTC day: ${shares.join('; ')}. Over a share: 429 with Retry-After until 00:00 UTC.`,
    openings: `Openings: ${or(config.createLimitPerHour, `${config.createLimitPerHour} per address per hour`)}.`,
    requests: `Requests: ${or(requests, `${requests} per address per minute`)}.`,
    polling:
      config.pollIntervalSeconds === 0
        ? 'Polling for updates is not limited.'
        : `Poll updates at most once every ${config.pollIntervalSeconds} seconds per conversation ` +
          '(poll_after_seconds).',
  };
}
