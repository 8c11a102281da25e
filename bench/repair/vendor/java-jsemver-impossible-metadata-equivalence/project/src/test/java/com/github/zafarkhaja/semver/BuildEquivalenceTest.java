package com.github.zafarkhaja.semver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Two builds of the same version with different build metadata are different
 * artifacts: they must not be equivalent.
 */
class BuildEquivalenceTest {

    @Test
    void shouldNotTreatDifferentBuildsAsEquivalent() {
        Version v1 = Version.of(1, 2, 3, "pre-release", "build.metadata");
        Version v2 = Version.of(1, 2, 3, "pre-release");
        assertFalse(v1.isEquivalentTo(v2));
    }
}
