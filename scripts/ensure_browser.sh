#!/usr/bin/env bash
# Headless Chromium + chromedriver for the dashboard's browser tests (Debian packages).
# Installs them when running as root on Debian; otherwise says so (browser tests then skip,
# unless COORDSCOPE_REQUIRE_BROWSER=1, as in CI, where they fail instead).
set -u
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "coordscope: installing chromium and chromium-driver for the browser tests ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq chromium chromium-driver >/dev/null && exit 0
    echo "coordscope: apt-get could not install chromium/chromium-driver." >&2
    exit 1
fi
echo "coordscope: chromium/chromedriver not found; browser tests will be skipped" \
     "(Debian: sudo apt-get install chromium chromium-driver)." >&2
exit 0
