package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.Plan;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What an applied plan leaves known without a read: whole files written with every attribute given. */
class HostReadsTest {
    private static final byte[] DROP_IN = "net.core.somaxconn = 65535\n".getBytes(StandardCharsets.UTF_8);
    private static final Command.Attributes ALL = new Command.Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));

    private static Command.PutFile put(String path, Command.Attributes attributes) {
        return new Command.PutFile(path, DROP_IN, attributes, List.of(), false);
    }

    @Test
    void aFileWrittenWithEveryAttributeIsKnownAsWritten() {
        HostReads reads = new HostReads();
        reads.wrote(Plan.of(new Change("set", List.of(), List.of(put("/etc/sysctl.d/99.conf", ALL),
                Command.Exec.of("sysctl", "-w", "net.core.somaxconn=65535")))));
        assertEquals(Optional.of(new FileStat(FileStat.Type.FILE, 0644, "root", "root", DROP_IN.length, "")), reads.stat("/etc/sysctl.d/99.conf"));
        assertArrayEquals(DROP_IN, reads.content("/etc/sysctl.d/99.conf"));
    }

    @Test
    void aFileWhoseAttributesAreNotAllKnownOrThatALaterCommandTouchesIsReadAgain() {
        HostReads reads = new HostReads();
        reads.wrote(Plan.of(new Change("new", List.of(), List.of(
                put("/etc/a.conf", new Command.Attributes(Optional.empty(), Optional.of("root"), Optional.of("root"))),
                put("/etc/b.conf", new Command.Attributes(Optional.of("0600"), Optional.of("1000"), Optional.of("1000"))),
                put("/etc/c.conf", ALL), new Command.Remove("/etc/c.conf"),
                put("/srv/d/e.conf", ALL), new Command.SetAttributes("/srv/d/e.conf", ALL)))));
        assertNull(reads.stat("/etc/a.conf"), "a new file's mode comes from the host's umask");
        assertNull(reads.stat("/etc/b.conf"), "stat says names, not numbers");
        assertNull(reads.stat("/etc/c.conf"));
        assertNull(reads.stat("/srv/d/e.conf"));
    }
}
