// The site the owner names to block or trust every verified agent of it (`block --site`, `trust --site`),
// read as sites are kept: lower case, in ASCII, and a registrable domain (base/sites.ts), never a subdomain.

import { domainToASCII } from 'node:url';
import { siteOfHost } from '../base/sites.ts';
import { refuse } from '../refusals/refusal.ts';

/** The site the owner names (`agent.example`), in the spelling sites are kept in; refuses what is not one. */
export function siteNamed(given: string): string {
  const host = domainToASCII(given.trim().toLowerCase());
  if (host === '' || !/^[a-z0-9.-]+$/.test(host) || host.startsWith('.') || host.endsWith('.')) {
    throw refuse('not_a_site', given, 'give a registrable domain such as agent.example (no scheme, port or path)');
  }
  const site = siteOfHost(host);
  if (site !== host) throw refuse('not_a_site', given, `the site it belongs to is ${site}`);
  return site;
}
