package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
