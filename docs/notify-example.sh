#!/bin/sh
# NOTIFY_COMMAND example: append each new client message to a file the owner can tail.
# The server runs this without a shell, with CONVERSATION_ID, MESSAGE_SEQ, AGENT_NAME (self-declared),
# VERIFIED_AGENT (the identity a Web Bot Auth signature proved, or empty) and SENDER (both together,
# as `inbox` says them: "scout (verified: https://agent.example)" or "scout (unverified)") and EVENT
# ("message", or "closed" when the agent closed the conversation) in the environment, and the message
# on stdin. The server has already made all of it safe to print, with the function
# its owner's script prints agents' text with: every control, format, bidi and invisible character
# (tag characters too) is shown as an escape such as \x1b or \u202e, and every line of the message
# starts with "    | ", so nothing an agent writes can drive `tail -F` or pass for a line of this
# file's own. One notification runs at a time, so the entries below never interleave. The file is
# private to the service's user (0600).
#
# The file is bounded: once it holds NOTIFY_KEEP messages (500 unless set), it is renamed to
# "$NOTIFY_FILE.1", replacing the one before, and a new file begins. So the newest 500 to 1,000
# messages are kept, and older ones are deleted; `tail -F` (not -f) follows the new file.
#
#   NOTIFY_COMMAND=/path/to/docs/notify-example.sh NOTIFY_FILE=$HOME/agent-messages.txt npm start
#
# To be mailed instead, replace the block below with for example:
#   mail -s "New message in $CONVERSATION_ID" owner@example.org
set -eu
umask 077
file=${NOTIFY_FILE:-$HOME/agent-messages.txt}
keep=${NOTIFY_KEEP:-500}
if ! [ "$keep" -gt 0 ] 2>/dev/null; then
  echo "NOTIFY_KEEP must be a whole number above 0, got \"$keep\"" >&2
  exit 1
fi
# Each entry's first line, and only it, starts with a digit (its time): a message's lines start with "    | ".
if [ -f "$file" ] && [ "$(grep -c '^[0-9]' "$file" || true)" -ge "$keep" ]; then
  mv -f "$file" "$file.1"
fi
touch "$file" && chmod 600 "$file"
{
  printf '%s  conversation %s  #%s  from %s\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$CONVERSATION_ID" "$MESSAGE_SEQ" "$SENDER"
  cat
  printf '\n'
} >> "$file"
