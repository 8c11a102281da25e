#!/bin/sh
set -eu
# Offline: every plugin and test dependency the pom names is in the local Maven repository (~/.m2).
# The JVMs stop at the first JIT tier: for a build this short, start-up is most of the time.
export MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
mvn -o -B -ntp -Dstyle.color=never -DargLine="-XX:TieredStopAtLevel=1" test
