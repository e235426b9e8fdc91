package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.text.Sha256;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UploadDigestsTest {
    /** A path of this test's own, so that other tests' uploads in the same JVM do not meet it. */
    private static String path() {
        return "/etc/test-" + UUID.randomUUID();
    }

    private static byte[] content(int size, char fill) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    @Test
    void theSameContentAgainHasTheSameDigest() {
        String path = path();
        byte[] known = content(100_000, 'k');
        assertEquals(Sha256.hex(known), UploadDigests.of(path, known));
        assertEquals(Sha256.hex(known), UploadDigests.of(path, known.clone()));
    }

    @Test
    void aContentOfTheSameLengthThatDiffersInItsLastByteGetsItsOwnDigest() {
        String path = path();
        byte[] first = content(20_000, 'h');
        byte[] second = first.clone();
        second[second.length - 1] = 'x';
        assertEquals(Sha256.hex(first), UploadDigests.of(path, first));
        assertEquals(Sha256.hex(second), UploadDigests.of(path, second));
        assertEquals(Sha256.hex(first), UploadDigests.of(path, first));
    }

    @Test
    void changingTheArrayAfterAnUploadDoesNotChangeWhatIsRemembered() {
        String path = path();
        byte[] content = content(UploadDigests.MIN_SIZE, 'a');
        String before = UploadDigests.of(path, content);
        content[0] = 'b';
        assertEquals(Sha256.hex(content), UploadDigests.of(path, content));
        content[0] = 'a';
        assertEquals(before, UploadDigests.of(path, content));
    }

    @Test
    void smallContentsAndOtherPathsAreHashedAsThemselves() {
        String path = path();
        byte[] small = content(UploadDigests.MIN_SIZE - 1, 's');
        assertEquals(Sha256.hex(small), UploadDigests.of(path, small));
        byte[] large = content(50_000, 'l');
        UploadDigests.of(path, large);
        byte[] other = content(50_000, 'o');
        assertEquals(Sha256.hex(other), UploadDigests.of(path(), other));
        assertEquals(Sha256.hex(new byte[0]), UploadDigests.of(path, new byte[0]));
    }

    @Test
    void aContentAboveTheSizeKeptIsHashedEachTime() {
        String path = path();
        byte[] large = content(UploadDigests.MAX_SIZE + 1, 'z');
        assertEquals(Sha256.hex(large), UploadDigests.of(path, large));
        large[large.length / 2] = 'y';
        assertEquals(Sha256.hex(large), UploadDigests.of(path, large));
    }

    @Test
    void manyPathsStayCorrectPastTheBound() {
        byte[] content = content(10_000, 'm');
        for (int i = 0; i < UploadDigests.MAX_PATHS * 2 + 3; i++) {
            content[i % content.length] = (byte) i;
            assertEquals(Sha256.hex(content), UploadDigests.of(path(), content));
        }
    }
}
