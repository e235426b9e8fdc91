package dev.provision.modules.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A large controller file planned without reading it into memory or the host's copy back. */
class LargeUploadTest {
    @TempDir
    Path controller;
    Path source;
    byte[] content;
    static final long SIZE = LargeUpload.THRESHOLD + 5;

    @BeforeEach
    void source() throws Exception {
        content = new byte[(int) SIZE];
        new Random(3).nextBytes(content);
        source = Files.write(controller.resolve("shard.bin"), content);
    }

    private Plan plan(FakeHost host, String dest) throws Exception {
        return LargeUpload.plan(host, dest, "shard.bin", source, Attributes.NONE, false, true);
    }

    private static List<String> described(Plan plan) {
        return plan.changes().stream().flatMap(c -> c.commands().stream())
                .map(dev.provision.modules.testing.Expect::describe).toList();
    }

    @Test
    void onlyFilesFromTheThresholdOnAreUploadedAsStreams() throws Exception {
        assertTrue(LargeUpload.applies(source));
        assertTrue(!LargeUpload.applies(Files.write(controller.resolve("small"), new byte[100])));
        assertTrue(!LargeUpload.applies(controller), "a directory is not");
    }

    @Test
    void aMissingFileIsCreatedFromTheStreamAndADirectoryDestTakesTheName() throws Exception {
        Plan plan = plan(new FakeHost().directory("/data"), "/data/");
        assertEquals(List.of("upload shard.bin /data/shard.bin [- - -] " + SIZE + " bytes"), described(plan));
        assertTrue(plan.changes().getFirst().diffs().getFirst().after().contains(SIZE + " bytes"), plan.toString());
    }

    @Test
    void theSameBytesOnTheHostAreConvergedAndComparedThere() throws Exception {
        FakeHost host = new FakeHost().bytes("/data/shard.bin", content, "0644", "root", "root");
        host.probe(0, dev.provision.modules.text.Sha256.hex(content) + "  /data/shard.bin\n", "", "sha256sum", "--", "/data/shard.bin");
        Plan plan = plan(host, "/data/shard.bin");
        assertEquals(List.of(), described(plan));
        assertTrue(host.probesRun().contains(List.of("sha256sum", "--", "/data/shard.bin")), host.probesRun().toString());
    }

    @Test
    void aHostFileOfTheSameSizeWithOtherBytesIsRewrittenKeepingItsAttributes() throws Exception {
        byte[] other = content.clone();
        other[12345] ^= 1;
        FakeHost host = new FakeHost().bytes("/data/shard.bin", other, "0640", "train", "train");
        host.probe(0, dev.provision.modules.text.Sha256.hex(other) + "  /data/shard.bin\n", "", "sha256sum", "--", "/data/shard.bin");
        Plan plan = plan(host, "/data/shard.bin");
        assertEquals(List.of("upload shard.bin /data/shard.bin [0640 train train] " + SIZE + " bytes"), described(plan));
        assertTrue(plan.changes().getFirst().diffs().getFirst().after().contains("the same size"), plan.toString());
    }

    @Test
    void aHostFileOfAnotherSizeDiffersWithoutAProbe() throws Exception {
        FakeHost host = new FakeHost().bytes("/data/shard.bin", new byte[10], "0644", "root", "root");
        Plan plan = plan(host, "/data/shard.bin");
        assertEquals(1, described(plan).size());
        assertTrue(host.probesRun().stream().noneMatch(p -> p.getFirst().equals("sha256sum")), host.probesRun().toString());
    }

    @Test
    void aMissingDirectoryIsAnErrorAsForEveryCopy() throws Exception {
        dev.provision.modules.spi.ModuleException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.provision.modules.spi.ModuleException.class, () -> plan(new FakeHost(), "/nope/shard.bin"));
        assertTrue(e.getMessage().contains("/nope"), e.getMessage());
    }
}
