// The release this code is, as package.json and CHANGELOG.md name it: /health, contact-info,
// the MCP server info and the A2A agent card say it, so an owner can see from outside what runs.

import { readFileSync } from 'node:fs';

export const SERVICE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
