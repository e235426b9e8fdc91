package dev.provision.modules.cluster;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class AuthorizedKeyModuleTest extends ModuleTableTest<AuthorizedKeyModule> {
    static final String CLUSTER = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIClusterKeyBlob0000000000000000000000000000 provision-cluster";
    static final String ADMIN = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCadminKeyBlob== admin@laptop";
    static final String OTHER = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtherKeyBlob00000000000000000000000000000 someone";
    private static final String KEYS = "/home/train/.ssh/authorized_keys";

    AuthorizedKeyModuleTest() {
        super(new AuthorizedKeyModule());
    }

    /** A host with user train (home /home/train, group train). */
    static FakeHost withUser() {
        return new FakeHost().directory("/home/train", "0755", "train", "train")
                .probe(0, "train:x:1000:1000:Trainer:/home/train:/bin/bash\n", "", "getent", "passwd", "train")
                .probe(0, "train\n", "", "id", "-gn", "train");
    }

    static FakeHost withKeys(String content) {
        return withUser().directory("/home/train/.ssh", "0700", "train", "train").file(KEYS, content, "0600", "train", "train");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("creates .ssh and the file", withUser(), Args.of("user", "train", "key", CLUSTER),
                        planned("mkdir /home/train/.ssh [0700 train train]", "put " + KEYS + " [0600 train train] \"" + CLUSTER + "\\n\"")),
                row("converged", withKeys(ADMIN + "\n" + CLUSTER + "\n"), Args.of("user", "train", "key", CLUSTER),
                        converged(KEYS + " has key ssh-ed25519 ...00000000 provision-cluster")),
                row("a key with another comment and options counts", withKeys("from=\"10.213.0.0/24\",no-pty "
                                + CLUSTER.replace("provision-cluster", "old comment") + "\n"),
                        Args.of("user", "train", "key", CLUSTER), converged(KEYS + " has key ssh-ed25519 ...00000000 provision-cluster")),
                row("appends a missing key", withKeys(ADMIN + "\n"), Args.of("user", "train", "key", CLUSTER),
                        planned("put " + KEYS + " [0600 train train] \"" + ADMIN + "\\n" + CLUSTER + "\\n\"")),
                row("fixes the directory and file modes", withUser().directory("/home/train/.ssh", "0755", "train", "train")
                                .file(KEYS, CLUSTER + "\n", "0644", "root", "root"),
                        Args.of("user", "train", "key", CLUSTER),
                        planned("attrs /home/train/.ssh [0700 - -]", "attrs " + KEYS + " [0600 train train]")),
                row("exclusive removes other keys and keeps comments", withKeys("# admins\n" + OTHER + "\n" + CLUSTER + "\n" + CLUSTER + "\n"),
                        Args.of("user", "train", "key", CLUSTER + "\n" + ADMIN, "exclusive", true),
                        planned("put " + KEYS + " [0600 train train] \"# admins\\n" + CLUSTER + "\\n" + ADMIN + "\\n\"")),
                row("absent removes the key whatever its comment", withKeys(ADMIN + "\n" + CLUSTER.replace("provision-cluster", "x") + "\n"),
                        Args.of("user", "train", "key", CLUSTER, "state", "absent"),
                        planned("put " + KEYS + " [0600 train train] \"" + ADMIN + "\\n\"")),
                row("absent when not there", withKeys(ADMIN + "\n"), Args.of("user", "train", "key", CLUSTER, "state", "absent"),
                        converged(KEYS + " does not have key ssh-ed25519 ...00000000 provision-cluster")),
                row("absent without a file", withUser(), Args.of("user", "train", "key", CLUSTER, "state", "absent"),
                        converged(KEYS + " does not exist; no key to remove")),
                row("custom path", withUser().directory("/etc/ssh/keys"), Args.of("user", "train", "key", CLUSTER, "path", "/etc/ssh/keys/train",
                                "manage_dir", false),
                        planned("put /etc/ssh/keys/train [0600 train train] \"" + CLUSTER + "\\n\"")),
                row("no directory and manage_dir false", withUser(), Args.of("user", "train", "key", CLUSTER, "manage_dir", false),
                        fails("Destination directory /home/train/.ssh does not exist")),
                row("unknown user", new FakeHost().probe(2, "", "", "getent", "passwd", "ghost"), Args.of("user", "ghost", "key", CLUSTER),
                        fails("user ghost does not exist on this host")),
                row("not a key", withUser(), Args.of("user", "train", "key", "ssh-ed25519"), fails("key line 1 is not an OpenSSH public key")),
                row("a private key is refused without echo", withUser(), Args.of("user", "train",
                        "key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"),
                        fails("key holds a private key; give the public key (the .pub file)")),
                row("exclusive with absent", withUser(), Args.of("user", "train", "key", CLUSTER, "state", "absent", "exclusive", true),
                        fails("exclusive applies to state=present only")),
                row("user that would be an option", withUser(), Args.of("user", "-s", "key", CLUSTER), fails("is not a user name")),
                row("a carriage return cannot smuggle in a second key line", withUser(), Args.of("user", "train",
                        "key", CLUSTER + "\rcommand=\"touch /tmp/x\" " + OTHER),
                        fails("key holds a control character (\\x0d) at offset " + CLUSTER.length() + "; keys are separated by newlines only")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void summarySaysWhatIsAddedAndRemoved() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("user", "train", "key", CLUSTER, "exclusive", true)),
                new FakeContext(withKeys(OTHER + "\n"), controller));
        assertEquals("add key ssh-ed25519 ...00000000 provision-cluster to " + KEYS + "; remove 1 other key from " + KEYS + " (exclusive)",
                plan.changes().getFirst().summary());
    }

    @Test
    void keyLinesParseWithQuotedOptions() {
        PublicKey k = PublicKey.parse("command=\"echo a b\",no-pty ssh-ed25519 AAAAC3Nz key comment").orElseThrow();
        assertEquals("command=\"echo a b\",no-pty", k.options());
        assertEquals("ssh-ed25519 AAAAC3Nz", k.identity());
        assertEquals("key comment", k.comment());
        assertTrue(PublicKey.parse("# ssh-ed25519 AAAA").isEmpty());
    }
}
