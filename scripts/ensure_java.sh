#!/usr/bin/env bash
# Make sure a Java 17+ runtime is on PATH: PySpark 4.x needs it. Also wants the JDK's javac:
# coordscope compiles its Java candidate filter (pipeline/spark/jvm/) with it; without javac ingest
# still works, with Spark's rlike instead, about 10x slower at reading.
# On Debian as root, installs openjdk-17-jdk-headless; elsewhere, says what to do (and fails only
# when there is no Java 17 at all).
set -u

java_major() {
    # `java -version` prints e.g. 'openjdk version "17.0.15"' or 'java version "1.8.0_392"' on stderr
    local v
    v=$("${1:-java}" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)
    [ -n "$v" ] || { echo 0; return; }
    case "$v" in
        1.*) echo "$v" | cut -d. -f2 ;;
        *) echo "$v" | cut -d. -f1 | cut -d- -f1 ;;
    esac
}

have_java17() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
        [ "$(java_major "$JAVA_HOME/bin/java")" -ge 17 ] && return 0
    fi
    command -v java >/dev/null 2>&1 && [ "$(java_major java)" -ge 17 ]
}

have_javac() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then return 0; fi
    command -v javac >/dev/null 2>&1
}

can_apt() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }

if have_java17; then
    have_javac && exit 0
    if can_apt; then
        echo "coordscope: no javac; installing openjdk-17-jdk-headless for the Java candidate filter ..." >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null && apt-get install -y -qq openjdk-17-jdk-headless >/dev/null && hash -r
    fi
    have_javac || echo "coordscope: no javac (install openjdk-17-jdk-headless): ingest will use Spark's slower rlike filter." >&2
    exit 0
fi

found="none"
command -v java >/dev/null 2>&1 && found="Java $(java_major java)"
echo "coordscope: Spark 4 needs Java 17 or newer; found: $found." >&2

if can_apt; then
    echo "coordscope: installing openjdk-17-jdk-headless with apt-get ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq openjdk-17-jdk-headless >/dev/null || {
        echo "coordscope: apt-get could not install openjdk-17-jdk-headless." >&2
        exit 1
    }
    hash -r
    have_java17 && { echo "coordscope: Java $(java_major java) installed." >&2; exit 0; }
    echo "coordscope: Java 17 was installed but 'java' on PATH is still older; set JAVA_HOME to it." >&2
    exit 1
fi

cat >&2 <<'MSG'
coordscope: install a Java 17+ runtime and put it on PATH (or set JAVA_HOME), for example:
  Debian/Ubuntu:  sudo apt-get install openjdk-17-jdk-headless
  macOS:          brew install openjdk@17
MSG
exit 1
