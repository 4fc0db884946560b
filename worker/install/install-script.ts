/**
 * The script behind `GET /install` (docs/raspberry-pi.md): one line on a device installs the agent
 * this worker serves (/agent/edgeloop-agent.tgz, packed from the same tree: wrangler.toml's [build]),
 * pairs it, and runs it as the systemd service its package ships. POSIX sh, since a fresh board has
 * no bash guarantee; every command reads /dev/null, since under `curl … | sh` standard input is the
 * script itself. The worker fills in its own URL; an argument overrides it (a tunnel, a proxy).
 * The environment settings move each place it writes, so it runs without root (the e2e test).
 */

/** Node the agent runs on (device-agent/package.json's engines), and how to get it on a Pi. */
const NEED_NODE =
  "the agent needs Node 20 or later: on Raspberry Pi OS Trixie \\`sudo apt install -y nodejs npm\\`; " +
  "on Bookworm (its nodejs is 18) NodeSource's Node 22: " +
  "\\`curl -fsSL https://deb.nodesource.com/setup_22.x | sudo -E bash - && sudo apt install -y nodejs\\`";

export function installScript(workerUrl: string): string {
  // Quoted for sh's single quotes: a URL has none, but a Host header is not ours to trust.
  const url = workerUrl.replace(/'/g, "");
  return `#!/bin/sh
# edgeloop: installs this worker's device agent here, pairs it, and runs it as a systemd service.
#   curl -fsSL ${url}/install | sudo sh                       (as root: the service too)
#   curl -fsSL ${url}/install | sh -s -- --agent-id pi-2      (options after "sh -s --")
# Arguments: [worker URL] [--agent-id ID]. Environment: EDGELOOP_AGENT_ID; where it writes:
# EDGELOOP_PREFIX (npm's install prefix), EDGELOOP_ETC_DIR (agent.env, agent.toml),
# EDGELOOP_DATA_DIR (workspace, state), EDGELOOP_UNIT_DIR (the unit; set, it is also started),
# EDGELOOP_USER (the service's user). Run again to update: the agent is reinstalled, its pairing kept.
set -eu

say() { printf 'edgeloop: %s\\n' "$*"; }
fail() { printf 'edgeloop: %s\\n' "$*" >&2; exit 1; }

url='${url}'
agent_id="\${EDGELOOP_AGENT_ID:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --agent-id) [ $# -ge 2 ] || fail "--agent-id needs a value"; agent_id="$2"; shift 2 ;;
    --agent-id=*) agent_id="\${1#*=}"; shift ;;
    -*) fail "unknown option $1 (arguments: [worker URL] [--agent-id ID])" ;;
    *) url="$1"; shift ;;
  esac
done
url="\${url%/}"

need_node="${NEED_NODE}"
command -v node >/dev/null 2>&1 || fail "no node on this machine; $need_node"
node_version="$(node --version </dev/null 2>/dev/null || true)"
node_major="$(printf '%s' "$node_version" | sed -n 's/^v\\([0-9][0-9]*\\)\\..*/\\1/p')"
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ]; then fail "this machine's Node is \${node_version:-unknown}; $need_node"; fi
command -v npm >/dev/null 2>&1 || fail "Node $node_version came without npm: \\\`sudo apt install -y npm\\\`"
node_bin="$(command -v node)"

if [ "$(id -u)" = 0 ]; then
  prefix="\${EDGELOOP_PREFIX:-}"
  etc_dir="\${EDGELOOP_ETC_DIR:-/etc/edgeloop}"
  data_dir="\${EDGELOOP_DATA_DIR:-/var/lib/edgeloop}"
  unit_dir="\${EDGELOOP_UNIT_DIR:-/etc/systemd/system}"
  run_user="\${EDGELOOP_USER:-edgeloop}"
else
  prefix="\${EDGELOOP_PREFIX:-$HOME/.local}"
  etc_dir="\${EDGELOOP_ETC_DIR:-\${XDG_CONFIG_HOME:-$HOME/.config}/edgeloop}"
  data_dir="\${EDGELOOP_DATA_DIR:-\${XDG_DATA_HOME:-$HOME/.local/share}/edgeloop}"
  unit_dir="\${EDGELOOP_UNIT_DIR:-}"
  run_user="\${EDGELOOP_USER:-$(id -un)}"
fi

tarball="$url/agent/edgeloop-agent.tgz"
say "installing the agent from $tarball (Node $node_version)"
if [ -n "$prefix" ]; then
  npm install -g --prefix "$prefix" --no-audit --no-fund "$tarball" </dev/null
  root_dir="$(npm root -g --prefix "$prefix" </dev/null)"
  agent="$prefix/bin/edgeloop-agent"
else
  npm install -g --no-audit --no-fund "$tarball" </dev/null
  root_dir="$(npm root -g </dev/null)"
  agent="$(npm prefix -g </dev/null)/bin/edgeloop-agent"
fi
[ -x "$agent" ] || fail "npm installed no $agent"
say "installed edgeloop-agent $("$node_bin" "$agent" --version </dev/null) at $agent"

if [ "$(id -u)" = 0 ] && ! id -u "$run_user" >/dev/null 2>&1; then
  useradd --system --home-dir "$data_dir" --shell /usr/sbin/nologin "$run_user" </dev/null
  for group in gpio i2c; do
    if getent group "$group" >/dev/null 2>&1; then usermod -aG "$group" "$run_user" </dev/null; fi
  done
fi
run_group="$(id -gn "$run_user")"
umask 077
mkdir -p "$etc_dir" "$data_dir/workspace" "$data_dir/state"
config="$etc_dir/agent.toml"
env_file="$etc_dir/agent.env"
[ -f "$env_file" ] || printf 'EDGELOOP_CONFIG=%s\\n' "$config" >"$env_file"

if [ -f "$config" ] && grep -q '^token *=' "$config"; then
  say "already paired: keeping $config"
else
  say "pairing with $url: approve the code below with \\\`npx edgeloop devices approve <code>\\\` or on the dashboard"
  set -- pair "$url" --config "$config" --no-run
  [ -z "$agent_id" ] || set -- "$@" --agent-id "$agent_id"
  "$node_bin" "$agent" "$@" </dev/null || fail "pairing did not complete; run this again for a new code"
fi
if [ "$(id -u)" = 0 ]; then chown -R "$run_user:$run_group" "$etc_dir" "$data_dir"; fi

# The package's unit, with this machine's paths: the Node found here and the agent npm installed.
unit_text="$(sed -e "s|^User=.*|User=$run_user|" -e "s|^Group=.*|Group=$run_group|" \\
  -e "s|/etc/edgeloop|$etc_dir|g" -e "s|/var/lib/edgeloop|$data_dir|g" \\
  -e "s|^ExecStart=.*|ExecStart=$node_bin $agent|" "$root_dir/edgeloop-agent/systemd/edgeloop-agent.service")"
if [ -n "$unit_dir" ]; then
  mkdir -p "$unit_dir"
  printf '%s\\n' "$unit_text" >"$unit_dir/edgeloop-agent.service"
  chmod 0644 "$unit_dir/edgeloop-agent.service"
  systemctl daemon-reload </dev/null
  systemctl enable edgeloop-agent </dev/null
  systemctl restart edgeloop-agent </dev/null
  say "edgeloop-agent runs as a service ($unit_dir/edgeloop-agent.service); its log: journalctl -u edgeloop-agent -f"
else
  printf '%s\\n' "$unit_text" >"$data_dir/edgeloop-agent.service"
  say "not root, so the service is not installed; as root:"
  printf '  sudo cp %s /etc/systemd/system/\\n' "$data_dir/edgeloop-agent.service"
  printf '  sudo systemctl daemon-reload && sudo systemctl enable --now edgeloop-agent\\n'
  say "or run it in this shell: $agent --config $config --workspace $data_dir/workspace"
fi
say "check it with: $agent doctor --config $config --workspace $data_dir/workspace"
`;
}
