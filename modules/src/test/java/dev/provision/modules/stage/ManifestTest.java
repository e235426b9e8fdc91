package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestTest {
    /** A line as manifest.sh prints it for a 3-byte file "aaa" (hash and root from sha256sum). */
    static final String LINE = "9834876dcfb05cb167a5c24953eba58c4ac89b1adf57f28f2f9d09af107ee8f0\t3\t644\t1700000000\tdir/a b.bin";

    @Test
    void parsesEveryFieldOfALineAndKeepsSpacesInPaths() {
        Manifest m = Manifest.parse(LINE + "\n");

        assertEquals(List.of(new Manifest.Entry("9834876dcfb05cb167a5c24953eba58c4ac89b1adf57f28f2f9d09af107ee8f0", 3, "644",
                1700000000L, "dir/a b.bin")), m.entries());
        assertEquals(LINE, m.entries().get(0).line());
        assertEquals(3, m.totalBytes());
    }

    @Test
    void rootHashIsWhatSha256sumPrintsForTheManifestText() {
        assertEquals("f20c3f6465dee9e75a5894d1e9b29a02778ddc6b3a8b658d1cf51e0d3d6fff75", Manifest.parse(LINE + "\n").rootHash());
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Manifest.parse("").rootHash());
    }

    @Test
    void refusesALineOfAnotherShape() {
        assertThrows(IllegalArgumentException.class, () -> Manifest.parse("not a manifest\n"));
        assertThrows(IllegalArgumentException.class, () -> Manifest.parse(LINE.replace("\t644\t", "\trw-r--r--\t")));
        assertThrows(IllegalArgumentException.class, () -> Manifest.parse(LINE.replace("\tdir/a b.bin", "\t")));
    }
}
