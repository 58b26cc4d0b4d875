#!/bin/sh
# NOTIFY_COMMAND example: append each new client message to a file the owner can tail.
# The server runs this without a shell, with CONVERSATION_ID, MESSAGE_SEQ and AGENT_NAME
# (self-declared, unverified) in the environment and the message text on stdin, one
# notification at a time, so the entries below never interleave.
#
#   NOTIFY_COMMAND=/path/to/docs/notify-example.sh NOTIFY_FILE=$HOME/agent-messages.txt npm start
#
# To be mailed instead, replace the last line with for example:
#   mail -s "New message in $CONVERSATION_ID" owner@example.org
set -eu
{
  printf '%s  conversation %s  #%s  from %s (unverified)\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$CONVERSATION_ID" "$MESSAGE_SEQ" "${AGENT_NAME:-(no name)}"
  cat
  printf '\n\n'
} >> "${NOTIFY_FILE:-$HOME/agent-messages.txt}"
