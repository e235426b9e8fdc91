package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.FileStat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ForecastTest {
    private static final Command.Attributes MODE_600 = new Command.Attributes(Optional.of("0600"), Optional.empty(), Optional.empty());

    @Test
    void knowsNothingOfUntouchedPaths() {
        assertTrue(new Forecast().stat("/etc/hosts").isEmpty());
    }

    @Test
    void plannedFileIsVisibleWithItsContentAndMode() {
        Forecast f = new Forecast();
        f.record(new Command.PutFile("/d/x", "abc".getBytes(), MODE_600), Optional.empty());
        assertArrayEquals("abc".getBytes(), f.content("/d/x").orElseThrow().orElseThrow());
        FileStat s = f.stat("/d/x").orElseThrow().orElseThrow();
        assertEquals(0600, s.mode());
        assertEquals(3, s.size());
    }

    @Test
    void aRunAsRootForecastsWhatItMakesAsRoots() {
        Forecast f = Forecast.forRun(true);
        f.record(new Command.PutFile("/d/x", "abc".getBytes(), Command.Attributes.NONE), Optional.empty());
        FileStat s = f.stat("/d/x").orElseThrow().orElseThrow();
        assertEquals("root", s.owner());
        assertEquals("root", s.group());
    }

    @Test
    void aRunAsAnotherUserDoesNotGuessTheOwnerOfWhatItMakes() {
        Forecast f = Forecast.forRun(false);
        f.record(new Command.PutFile("/d/x", "abc".getBytes(), Command.Attributes.NONE), Optional.empty());
        f.record(new Command.PutFile("/d/given", "abc".getBytes(),
                new Command.Attributes(Optional.empty(), Optional.of("bob"), Optional.of("staff"))), Optional.empty());
        FileStat existing = new FileStat(FileStat.Type.FILE, 0640, "bob", "staff", 1, "");
        f.record(new Command.PutFile("/d/old", "abc".getBytes(), Command.Attributes.NONE), Optional.of(existing));
        assertThrows(Forecast.OwnerUnknown.class, () -> f.stat("/d/x"));
        assertArrayEquals("abc".getBytes(), f.content("/d/x").orElseThrow().orElseThrow(), "its content is known");
        assertEquals("bob", f.stat("/d/given").orElseThrow().orElseThrow().owner());
        assertEquals("staff", f.stat("/d/old").orElseThrow().orElseThrow().group(), "a file that was there keeps its owner");
        // check mode's forecast shows contents; its owners are root's
        Forecast dryRun = new Forecast();
        dryRun.record(new Command.PutFile("/d/x", "abc".getBytes(), Command.Attributes.NONE), Optional.empty());
        assertEquals("root", dryRun.stat("/d/x").orElseThrow().orElseThrow().owner());
    }

    @Test
    void plannedDirectoryExistsAndRemovalHidesChildren() {
        Forecast f = new Forecast();
        f.record(new Command.MakeDirectory("/d", Command.Attributes.NONE), Optional.empty());
        f.record(new Command.PutFile("/d/x", new byte[0], Command.Attributes.NONE), Optional.empty());
        assertEquals(FileStat.Type.DIRECTORY, f.stat("/d").orElseThrow().orElseThrow().type());
        f.record(new Command.Remove("/d"), Optional.empty());
        assertTrue(f.stat("/d").orElseThrow().isEmpty());
        assertTrue(f.stat("/d/x").isEmpty());
    }

    @Test
    void attributesChangeKeepsContent() {
        Forecast f = new Forecast();
        f.record(new Command.PutFile("/x", "a".getBytes(), Command.Attributes.NONE), Optional.empty());
        FileStat current = f.stat("/x").orElseThrow().orElseThrow();
        f.record(new Command.SetAttributes("/x", MODE_600), Optional.of(current));
        assertEquals(0600, f.stat("/x").orElseThrow().orElseThrow().mode());
        assertArrayEquals("a".getBytes(), f.content("/x").orElseThrow().orElseThrow());
    }

    @Test
    void aListingGainsWhatEarlierTasksCreateAndLosesWhatTheyRemove() {
        Forecast f = new Forecast();
        f.record(new Command.PutFile("/t/new/deep/x", "abc".getBytes(), MODE_600), Optional.empty());
        f.record(new Command.Remove("/t/old"), Optional.empty());
        java.util.SortedMap<String, FileStat> host = new java.util.TreeMap<>();
        host.put("/t/old", new FileStat(FileStat.Type.DIRECTORY, 0755, "root", "root", 4096, ""));
        host.put("/t/old/y", new FileStat(FileStat.Type.FILE, 0644, "root", "root", 1, ""));
        host.put("/t/kept", new FileStat(FileStat.Type.FILE, 0644, "root", "root", 1, ""));
        assertEquals(java.util.List.of("/t/kept", "/t/new", "/t/new/deep", "/t/new/deep/x"), java.util.List.copyOf(f.below("/t", host).keySet()));
        assertEquals(0600, f.below("/t", host).get("/t/new/deep/x").mode());
    }

    @Test
    void aHostSideCopyReadsItsSourceAndAHardLinkIsItsTarget() {
        Forecast f = new Forecast();
        FileStat source = new FileStat(FileStat.Type.FILE, 0640, "root", "adm", 5, "", 1, 42, 1);
        f.record(new Command.CopyFile("/srv/s", "/etc/f", MODE_600), Optional.of(source));
        assertEquals(Optional.of("/srv/s"), f.copiedFrom("/etc/f"));
        assertEquals(5, f.stat("/etc/f").orElseThrow().orElseThrow().size());
        assertEquals(0600, f.stat("/etc/f").orElseThrow().orElseThrow().mode());
        f.record(new Command.HardLink("/srv/l", "/srv/s"), Optional.of(source));
        assertTrue(f.stat("/srv/l").orElseThrow().orElseThrow().sameFileAs(source));
    }
}
