package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The stat fact's parser on answers its script gave on Debian 12 (GNU coreutils 9.1, dash). */
class StatProbeTest {
    private static ExecResult answer(int code, String stdout) {
        return new ExecResult(code, stdout.getBytes(StandardCharsets.UTF_8), new byte[0]);
    }

    @Test
    void aSmallFileComesWithItsContent() throws Exception {
        StatProbe.Answer a = StatProbe.parse("/etc/small.conf",
                answer(0, "regular file|644|root|root|65024|2154559|1|12\nCONTENT\nhello world\n"));
        FileStat stat = a.stat().orElseThrow();
        assertEquals(FileStat.Type.FILE, stat.type());
        assertEquals(0644, stat.mode());
        assertEquals("root", stat.owner());
        assertEquals(12, stat.size());
        assertEquals(2154559, stat.inode());
        assertArrayEquals("hello world\n".getBytes(StandardCharsets.UTF_8), a.content().orElseThrow());
        assertEquals(Optional.empty(), a.digest());
        assertEquals(Optional.empty(), a.parent());
    }

    @Test
    void contentOfAnotherSizeThanTheStatsIsNotTaken() throws Exception {
        // the file changed between stat and cat: a later read reads it afresh
        StatProbe.Answer a = StatProbe.parse("/etc/small.conf",
                answer(0, "regular file|644|root|root|65024|2154559|1|12\nCONTENT\nhello\n"));
        assertEquals(12, a.stat().orElseThrow().size());
        assertEquals(Optional.empty(), a.content());
    }

    @Test
    void anEmptyFileIsKnownEmptyWithoutContent() throws Exception {
        StatProbe.Answer a = StatProbe.parse("/etc/empty", answer(0, "regular empty file|644|root|root|65024|2154736|1|0\n"));
        assertEquals(FileStat.Type.FILE, a.stat().orElseThrow().type());
        assertEquals(0, a.content().orElseThrow().length);
    }

    @Test
    void aFileOthersHadInCommonComesAsItsDigest() throws Exception {
        StatProbe.Answer a = StatProbe.parse("/etc/small.conf", answer(0, "regular file|644|root|root|65024|2154559|1|12\n"
                + "DIGEST a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447\n"));
        assertEquals(Optional.of("a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447"), a.digest());
        assertEquals(Optional.empty(), a.content());
    }

    @Test
    void aMissingPathSaysItsParent() throws Exception {
        StatProbe.Answer a = StatProbe.parse("/etc/new.conf", answer(3, "PARENT directory|755|root|root|65024|2154540|2|4096\n"));
        assertEquals(Optional.empty(), a.stat());
        assertEquals(FileStat.Type.DIRECTORY, a.parent().orElseThrow().orElseThrow().type());
        StatProbe.Answer gone = StatProbe.parse("/gone/new.conf", answer(3, "NO PARENT\n"));
        assertEquals(Optional.of(Optional.empty()), gone.parent(), "the parent is known missing");
        StatProbe.Answer relative = StatProbe.parse("new.conf", answer(3, ""));
        assertEquals(Optional.empty(), relative.parent(), "no parent asked");
    }

    @Test
    void aLinkSaysItsTargetAndADirectoryItsStatOnly() throws Exception {
        FileStat link = StatProbe.parse("/tmp/link", answer(0, "symbolic link|777|root|root|65024|2154801|1|12\n/tmp/cap/etc\n"))
                .stat().orElseThrow();
        assertEquals(FileStat.Type.LINK, link.type());
        assertEquals("/tmp/cap/etc", link.linkTarget());
        StatProbe.Answer dir = StatProbe.parse("/etc", answer(0, "directory|755|root|root|65024|2154540|2|4096\n"));
        assertEquals(FileStat.Type.DIRECTORY, dir.stat().orElseThrow().type());
        assertEquals(Optional.empty(), dir.content());
    }

    @Test
    void aFailedStatIsTheModulesError() {
        ExecResult denied = new ExecResult(1, new byte[0],
                "stat: cannot statx '/root/x': Permission denied\n".getBytes(StandardCharsets.UTF_8));
        ModuleException e = assertThrows(ModuleException.class, () -> StatProbe.parse("/root/x", denied));
        assertTrue(e.getMessage().contains("cannot stat /root/x: stat: cannot statx '/root/x': Permission denied"), e.getMessage());
    }

    @Test
    void theScriptAsksForTheDigestOnlyFromItsSizeOn() {
        assertTrue(StatProbe.script("/etc/a b", true, 65536).contains("-ge 65536"));
        assertTrue(StatProbe.script("/etc/a b", true, 65536).contains("'/etc/a b'"), "the path quoted");
        assertTrue(!StatProbe.script("/etc/a", false, 65536).contains("DIGEST"));
    }

    @Test
    void theParentOfAPathIsTakenOnlyWhereItIsPlain() {
        assertEquals(Optional.of("/etc"), StatProbe.parentOf("/etc/hosts"));
        assertEquals(Optional.of("/"), StatProbe.parentOf("/etc"));
        assertEquals(Optional.empty(), StatProbe.parentOf("/"));
        assertEquals(Optional.empty(), StatProbe.parentOf("/etc/../x"));
        assertEquals(Optional.empty(), StatProbe.parentOf("relative/x"));
    }
}
