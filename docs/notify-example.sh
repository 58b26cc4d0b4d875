#!/bin/sh
# NOTIFY_COMMAND example: append each new client message to a file the owner can tail.
# The server runs this without a shell, with CONVERSATION_ID, MESSAGE_SEQ and AGENT_NAME
# (self-declared, unverified; control characters already shown as escapes such as \x1b) in the
# environment and the message text, exactly as the agent sent it, on stdin. One notification
# runs at a time, so the entries below never interleave.
#
#   NOTIFY_COMMAND=/path/to/docs/notify-example.sh NOTIFY_FILE=$HOME/agent-messages.txt npm start
#
# The message is the agent's, so it is written so that it cannot pass for the script's own lines:
# every line of it starts with "    | ", and control characters (C0, DEL and C1, the bytes of
# terminal escape sequences) become "?", so `tail -f` on the file cannot be driven by an agent;
# so do the invisible characters that reorder or break a line (bidi controls such as U+202E,
# the line and paragraph separators U+2028 and U+2029, zero-width ones, the BOM).
# (GNU sed, as on Debian.)
#
# To be mailed instead, replace the block below with for example:
#   mail -s "New message in $CONVERSATION_ID" owner@example.org
set -eu
{
  printf '%s  conversation %s  #%s  from %s (unverified)\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$CONVERSATION_ID" "$MESSAGE_SEQ" "${AGENT_NAME:-(no name)}"
  LC_ALL=C sed -e 's/[[:cntrl:]]/?/g' -e 's/\xc2[\x80-\x9f]/?/g' \
    -e 's/\xe2\x80[\x8b-\x8f\xa8-\xae]/?/g' -e 's/\xe2\x81[\xa0-\xa4\xa6-\xa9]/?/g' -e 's/\xef\xbb\xbf/?/g' \
    -e 's/^/    | /'
  printf '\n\n'
} >> "${NOTIFY_FILE:-$HOME/agent-messages.txt}"
