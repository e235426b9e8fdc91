package dev.provision.modules.cluster;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;

import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

class SshKnownHostsModuleTest extends ModuleTableTest<SshKnownHostsModule> {
    private static final String PATH = SshKnownHostsModule.DEFAULT_PATH;
    private static final String K1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINode01";
    private static final String K2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINode02";
    private static final String BLOCK = "# BEGIN provision cluster known hosts\nnode01,10.213.0.11 " + K1 + "\nnode02,10.213.0.12 " + K2
            + "\n# END provision cluster known hosts\n";

    SshKnownHostsModuleTest() {
        super(new SshKnownHostsModule());
    }

    private static List<Object> entries(String key2) {
        return List.of(Map.of("names", List.of("node01", "10.213.0.11"), "keys", List.of(K1 + " root@node01")),
                Map.of("names", List.of("node02", "10.213.0.12"), "keys", List.of(key2)));
    }

    private static String shown(String s) {
        return s.replace("\n", "\\n");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("creates the file", new FakeHost().directory("/etc/ssh"), Args.of("entries", entries(K2)),
                        planned("put " + PATH + " [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("creates /etc/ssh when missing", new FakeHost().directory("/etc"), Args.of("entries", entries(K2)),
                        planned("mkdir /etc/ssh [0755 root root]", "put " + PATH + " [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("converged", new FakeHost().file(PATH, "old-host ssh-rsa AAAAB3\n" + BLOCK), Args.of("entries", entries(K2)),
                        converged(PATH + " lists the 2 cluster host keys")),
                row("a replaced node's key changes one line", new FakeHost().file(PATH, BLOCK),
                        Args.of("entries", entries("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKey")),
                        planned("put " + PATH + " [0644 root root] \"" + shown(BLOCK.replace(K2, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKey")) + "\"")),
                row("exclusive makes the entries the whole file", new FakeHost().file(PATH, "stale ssh-rsa AAAAB3\n" + BLOCK),
                        Args.of("entries", entries(K2), "exclusive", true),
                        planned("put " + PATH + " [0644 root root] \"# Known host keys of the cluster, managed by provision (the whole file).\\n"
                                + "node01,10.213.0.11 " + K1 + "\\nnode02,10.213.0.12 " + K2 + "\\n\"")),
                row("fixes the mode", new FakeHost().file(PATH, BLOCK, "0600", "root", "root"), Args.of("entries", entries(K2)),
                        planned("attrs " + PATH + " [0644 - -]")),
                row("absent removes the block", new FakeHost().file(PATH, "a ssh-rsa AAAAB3\n" + BLOCK), Args.of("state", "absent"),
                        planned("put " + PATH + " [0644 root root] \"a ssh-rsa AAAAB3\\n\"")),
                row("absent exclusive removes the file", new FakeHost().file(PATH, BLOCK), Args.of("state", "absent", "exclusive", true),
                        planned("remove " + PATH)),
                row("absent without a file", new FakeHost(), Args.of("state", "absent"), converged(PATH + " does not exist")),
                row("no entries", new FakeHost(), Args.of("entries", List.of()), fails("entries lists no host key")),
                row("a bad key", new FakeHost(), Args.of("entries", List.of(Map.of("names", List.of("n"), "keys", List.of("AAAA"))))
                        , fails("entries[0]: not a public host key: AAAA")),
                row("a bad name", new FakeHost(), Args.of("entries", List.of(Map.of("names", List.of("a,b"), "keys", List.of(K1)))),
                        fails("'a,b' is not a host name, address or [host]:port")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }
}
