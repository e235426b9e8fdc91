package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.LocalConnection;
import dev.provision.modules.spi.FileStat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's host view over a real shell on this machine: what a stat and a read cost and return. */
class ConnectionHostViewTest {
    @TempDir
    Path dir;

    private final AtomicInteger commands = new AtomicInteger();
    /** How many bytes the last command answered on its standard output. */
    private final AtomicInteger lastAnswer = new AtomicInteger();
    private final SharedContents shared = new SharedContents();

    private ConnectionHostView view() {
        return view(new HostReads());
    }

    private final Connection counting = counting(new LocalConnection("localhost"));

    private ConnectionHostView view(HostReads reads) {
        return new ConnectionHostView("localhost", counting, Map.of(), Optional.empty(), reads, shared);
    }

    private Connection counting(LocalConnection local) {
        return new Connection() {
            @Override
            public String hostName() {
                return local.hostName();
            }

            @Override
            public ExecResult exec(ExecRequest request) throws ConnectionException {
                commands.incrementAndGet();
                ExecResult result = local.exec(request);
                lastAnswer.set(result.stdout().length);
                return result;
            }

            @Override
            public void close() {
                local.close();
            }
        };
    }

    @Test
    void aSmallFilesContentComesWithItsStatInOneCommand() throws Exception {
        byte[] content = "line\nCONTENT\n\0binary\377 and no newline at the end".getBytes(StandardCharsets.ISO_8859_1);
        Path file = Files.write(dir.resolve("small.conf"), content);
        ConnectionHostView view = view();
        FileStat stat = view.stat(file.toString()).orElseThrow();
        assertEquals(FileStat.Type.FILE, stat.type());
        assertEquals(content.length, stat.size());
        assertArrayEquals(content, view.readFile(file.toString()).orElseThrow());
        assertEquals(1, commands.get(), "stat and read: one command");
    }

    @Test
    void aLargeFileIsReadByItsOwnCommand() throws Exception {
        byte[] content = new byte[StatProbe.CONTENT_WITH_STAT_MAX + 1];
        java.util.Arrays.fill(content, (byte) 'x');
        Path file = Files.write(dir.resolve("large"), content);
        ConnectionHostView view = view();
        assertEquals(content.length, view.stat(file.toString()).orElseThrow().size());
        assertArrayEquals(content, view.readFile(file.toString()).orElseThrow());
        assertEquals(2, commands.get());
    }

    @Test
    void anEmptyFileNeedsNoRead() throws Exception {
        Path file = Files.write(dir.resolve("empty"), new byte[0]);
        ConnectionHostView view = view();
        assertEquals(0, view.stat(file.toString()).orElseThrow().size());
        assertArrayEquals(new byte[0], view.readFile(file.toString()).orElseThrow());
        assertEquals(1, commands.get());
    }

    @Test
    void linksDirectoriesAndMissingPathsAreStatedAsBefore() throws Exception {
        Path target = Files.writeString(dir.resolve("target"), "t\n");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        ConnectionHostView view = view();
        FileStat linkStat = view.stat(link.toString()).orElseThrow();
        assertEquals(FileStat.Type.LINK, linkStat.type());
        assertEquals(target.toString(), linkStat.linkTarget());
        assertEquals(FileStat.Type.DIRECTORY, view.stat(dir.toString()).orElseThrow().type());
        assertTrue(view.stat(dir.resolve("missing").toString()).isEmpty());
        // The link's target is read afresh: what was cached belongs to a stat of that very path.
        assertEquals("t\n", new String(view.readFile(link.toString()).orElseThrow(), StandardCharsets.UTF_8));
    }

    @Test
    void viewsThatShareReadsReadOnceUntilTheyAreForgotten() throws Exception {
        Path file = Files.writeString(dir.resolve("shared.conf"), "a = 1\n");
        HostReads reads = new HostReads();
        assertEquals(6, view(reads).stat(file.toString()).orElseThrow().size());
        Files.writeString(file, "a = 22\n");
        assertEquals("a = 1\n", new String(view(reads).readFile(file.toString()).orElseThrow(), StandardCharsets.UTF_8),
                "the second item plans from what the first read");
        assertEquals(1, commands.get());
        reads.forget();
        assertEquals("a = 22\n", new String(view(reads).readFile(file.toString()).orElseThrow(), StandardCharsets.UTF_8));
        assertEquals(2, commands.get());
    }

    /** A view of another host of the same task: reads of its own, the task's shared contents. */
    private ConnectionHostView otherHost() {
        return view(new HostReads());
    }

    private static byte[] largeText(char fill) {
        byte[] content = new byte[SharedContents.MIN_SIZE + 100];
        java.util.Arrays.fill(content, (byte) fill);
        content[content.length - 1] = '\n';
        return content;
    }

    @Test
    void hostsWithTheSameLargeFileSendItsDigestAndShareOneCopy() throws Exception {
        Path file = Files.write(dir.resolve("known_hosts"), largeText('k'));
        ConnectionHostView first = otherHost();
        first.stat(file.toString());
        byte[] firstContent = first.readFile(file.toString()).orElseThrow();
        assertEquals(1, commands.get());
        ConnectionHostView second = otherHost();
        assertEquals(firstContent.length, second.stat(file.toString()).orElseThrow().size());
        assertTrue(lastAnswer.get() < 200, "the second host answered its stat and digest only: " + lastAnswer.get() + " bytes");
        assertSame(firstContent, second.readFile(file.toString()).orElseThrow(), "one copy for both hosts");
        assertEquals(2, commands.get(), "a stat each, no read");
    }

    @Test
    void hostsThatSentTheSameLargeFileInFullShareOneCopy() throws Exception {
        // read ahead at once, before any host's copy was kept: each sends it whole
        Path file = Files.write(dir.resolve("known_hosts"), largeText('k'));
        byte[] first = shared.offer(file.toString(), largeText('k'));
        assertSame(first, shared.offer(file.toString(), largeText('k')), "the same bytes: the kept copy");
        for (int host = 1; host <= SharedContents.PER_PATH; host++) {
            shared.offer(file.toString(), largeText((char) ('a' + host)));
        }
        assertSame(first, shared.offer(file.toString(), largeText('k')), "still the kept copy once the path has no more room");
        assertArrayEquals(largeText('z'), shared.offer(file.toString(), largeText('z')), "another content is its own");
    }

    /** A host planning its first reads ahead: the view over a connection that notes what it reads. */
    private ConnectionHostView planningAhead(ReadAhead ahead, java.util.Set<String> wanted) {
        return new ConnectionHostView("localhost", ahead.noting(counting, wanted), Map.of(), Optional.empty(), new HostReads(ahead), shared);
    }

    /** A host planning its first reads ahead (it may claim): what it reads ahead, the reads it noted. */
    private record FirstReading(ReadAhead ahead, java.util.Set<String> noted) {
        static FirstReading start() {
            ReadAhead ahead = new ReadAhead();
            ahead.claiming(true);
            return new FirstReading(ahead, new java.util.LinkedHashSet<>());
        }

        String notedLine() {
            return noted.iterator().next();
        }
    }

    /** Plans a stat of {@code path} ahead on {@code host}: the read is noted, not made. */
    private void noteStat(FirstReading host, String path, boolean expectedSame) {
        ConnectionHostView view = planningAhead(host.ahead(), host.noted());
        if (expectedSame) {
            view.expectSameOnEveryHost(path);
        }
        org.junit.jupiter.api.Assertions.assertThrows(dev.provision.modules.spi.ModuleException.class, () -> view.stat(path), "noted");
    }

    /** Two hosts planning their first reads ahead, each noting a stat of {@code path}, one after the other. */
    private java.util.List<FirstReading> twoHostsNoteStat(String path, boolean expectedSame) {
        FirstReading first = FirstReading.start();
        noteStat(first, path, expectedSame);
        FirstReading second = FirstReading.start();
        noteStat(second, path, expectedSame);
        return java.util.List.of(first, second);
    }

    @Test
    void hostsPlanningAheadAtOnceAskForTheDigestWhileTheFirstContentIsOnItsWay() throws Exception {
        String path = Files.write(dir.resolve("known_hosts"), largeText('k')).toString();
        java.util.List<FirstReading> hosts = twoHostsNoteStat(path, true);
        FirstReading first = hosts.get(0);
        FirstReading second = hosts.get(1);
        assertTrue(first.notedLine().contains("CONTENT"), "the first host claimed the content");
        assertTrue(second.notedLine().contains("sha256sum"), "the second asks for the digest: " + second.noted());

        assertTrue(second.ahead().read(counting, second.noted()), "the second host's exchange comes back first");
        assertTrue(lastAnswer.get() < 400, "its digest only: " + lastAnswer.get() + " bytes");
        var replanned = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                ConnectionHostView view = planningAhead(second.ahead(), new java.util.LinkedHashSet<>());
                view.expectSameOnEveryHost(path);
                view.stat(path);
                return view.readFile(path).orElseThrow(); // refused if it were not known: the connection notes
            } catch (dev.provision.modules.spi.ModuleException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        org.junit.jupiter.api.Assertions.assertFalse(replanned.isDone(), "the digest waits for the claimed content");
        assertTrue(first.ahead().read(counting, first.noted()));
        byte[] content = replanned.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertSame(shared.offer(path, largeText('k')), content, "the first host's copy, offered as its exchange arrived");
        assertEquals(2, commands.get(), "one exchange each, no read in full for the second");
    }

    @Test
    void aClaimThatBroughtNoContentLeavesTheDigestToReadInFull() throws Exception {
        String path = Files.write(dir.resolve("known_hosts"), largeText('k')).toString();
        FirstReading first = FirstReading.start();
        noteStat(first, path, true);
        // the first host's plan ends before its exchange, while the second, in its turn, has its digest
        var released = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            first.ahead().releaseClaims();
        });
        ConnectionHostView second = otherHost();
        second.expectSameOnEveryHost(path);
        long started = System.nanoTime();
        second.stat(path);
        assertTrue(System.nanoTime() - started >= 250_000_000L, "the digest waited for the claim");
        released.join();
        assertArrayEquals(largeText('k'), second.readFile(path).orElseThrow());
        assertEquals(2, commands.get(), "the digest missed: a read of its own");
        assertEquals(null, shared.claim(path), "a path is claimed once per task");
    }

    @Test
    void aFileNotExpectedTheSameIsNeitherClaimedNorGuessed() throws Exception {
        // /etc/hosts: each host's own lines; hosts that asked for its digest would all read it twice
        String path = Files.write(dir.resolve("hosts"), largeText('h')).toString();
        java.util.List<FirstReading> hosts = twoHostsNoteStat(path, false);
        FirstReading second = hosts.get(1);
        assertTrue(second.notedLine().contains("CONTENT") && !second.notedLine().contains("sha256sum"),
                "the second host asks for the content: " + second.noted());
        org.junit.jupiter.api.Assertions.assertFalse(hosts.get(0).ahead().holdsClaims(), "no claim");
    }

    @Test
    void aHostHoldingAClaimNeverWaitsForAnothers() throws Exception {
        String path = Files.write(dir.resolve("known_hosts"), largeText('k')).toString();
        SharedContents.Claim claim = shared.claim(path);
        assertEquals(null, shared.claim(path), "one claim per path");
        long started = System.nanoTime();
        assertEquals(null, shared.content(path, "0".repeat(64), false));
        assertTrue(System.nanoTime() - started < 5_000_000_000L, "no wait");
        claim.release();
    }

    @Test
    void aHostWhoseLargeFileDiffersReadsItInFull() throws Exception {
        Path file = Files.write(dir.resolve("hosts"), largeText('a'));
        ConnectionHostView first = otherHost();
        first.stat(file.toString());
        first.readFile(file.toString());
        Files.write(file, largeText('b'));
        ConnectionHostView second = otherHost();
        second.stat(file.toString());
        assertArrayEquals(largeText('b'), second.readFile(file.toString()).orElseThrow());
        assertEquals(3, commands.get(), "the digest missed: a read of its own");
    }

    @Test
    void aPathWhoseHostsAllDifferGoesBackToContentWithTheStat() throws Exception {
        Path file = dir.resolve("per-host");
        Files.write(file, largeText('0'));
        otherHost().stat(file.toString());
        for (int host = 1; host <= SharedContents.PER_PATH; host++) {
            Files.write(file, largeText((char) ('0' + host)));
            ConnectionHostView view = otherHost();
            view.stat(file.toString());
            view.readFile(file.toString());
        }
        int before = commands.get();
        Files.write(file, largeText('z'));
        ConnectionHostView view = otherHost();
        view.stat(file.toString());
        assertArrayEquals(largeText('z'), view.readFile(file.toString()).orElseThrow());
        assertEquals(before + 1, commands.get(), "after " + SharedContents.PER_PATH + " misses the content comes with the stat");
    }

    @Test
    void smallFilesAlwaysComeWithTheirStat() throws Exception {
        Path file = Files.writeString(dir.resolve("small"), "same on every host\n");
        otherHost().stat(file.toString());
        ConnectionHostView second = otherHost();
        second.stat(file.toString());
        assertEquals("same on every host\n", new String(second.readFile(file.toString()).orElseThrow(), StandardCharsets.UTF_8));
        assertEquals(2, commands.get());
    }

    @Test
    void aMissingPathSaysWhatItsParentIsInTheSameRoundTrip() throws Exception {
        HostReads reads = new HostReads();
        ConnectionHostView view = view(reads);
        Path sub = Files.createDirectory(dir.resolve("etc"));
        assertEquals(Optional.empty(), view.stat(sub.resolve("new.conf").toString()));
        assertEquals(1, commands.get());
        assertEquals(FileStat.Type.DIRECTORY, view.stat(sub.toString()).orElseThrow().type(), "known already");
        assertEquals(1, commands.get());
        assertEquals(Optional.empty(), view.stat(dir.resolve("gone/new.conf").toString()));
        assertEquals(Optional.empty(), view.stat(dir.resolve("gone").toString()), "a missing parent is known missing");
        assertEquals(2, commands.get());
        Path link = Files.createSymbolicLink(dir.resolve("via"), sub);
        assertEquals(Optional.empty(), view.stat(link.resolve("x").toString()));
        FileStat parent = view.stat(link.toString()).orElseThrow();
        assertEquals(FileStat.Type.LINK, parent.type());
        assertEquals(sub.toString(), parent.linkTarget());
        assertEquals(3, commands.get());
    }
}
