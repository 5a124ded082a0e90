#!/usr/bin/env bash
# Lets podman start containers on a machine whose kernel does not let even root raise a process's
# open-file limit (a sandboxed VM such as this project's CI): podman gives every container
# nofile = fs.nr_open by default, and runc then refuses to start any of them ("error setting
# rlimits for ready process: ... operation not permitted"). `default_ulimits = []` under
# [containers] in /etc/containers/containers.conf makes containers inherit podman's own limits.
# Run by scripts/image.sh and .ci/run; it changes nothing where the limit can be raised or the
# setting is already there, and says so in one line when it writes it.
set -euo pipefail

conf=/etc/containers/containers.conf
grep -qs '^[[:space:]]*default_ulimits[[:space:]]*=' "$conf" && exit 0
(ulimit -Hn "$(cat /proc/sys/fs/nr_open)") 2>/dev/null && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "podman cannot raise containers' open-file limit here: as root, add default_ulimits = [] under [containers] in $conf" >&2
  exit 1
fi
mkdir -p "$(dirname "$conf")"
if grep -qs '^\[containers\]' "$conf"; then
  sed -i '/^\[containers\]/a default_ulimits = []' "$conf"
else
  printf '[containers]\ndefault_ulimits = []\n' >>"$conf"
fi
echo "podman: wrote default_ulimits = [] under [containers] in $conf (containers cannot raise their open-file limit on this machine)"
