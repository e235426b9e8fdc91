package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostSettingsTest {
    private static final Path HOME = Path.of("/home/admin");

    private static HostSettings of(Map<String, Object> vars) throws UnreachableException {
        return HostSettings.of("node01", vars, "admin", HOME);
    }

    @Test
    void defaultsToTheInventoryNameTheLocalUserAndPort22() throws Exception {
        HostSettings host = of(Map.of());
        assertEquals("node01", host.address());
        assertEquals(22, host.port());
        assertEquals("admin", host.user());
        assertEquals(Optional.empty(), host.privateKey());
        assertEquals(Optional.empty(), host.jump());
        assertFalse(host.local());
    }

    @Test
    void readsTheAnsibleVariables() throws Exception {
        HostSettings host = of(Map.of("ansible_host", "10.0.0.1", "ansible_port", "2222", "ansible_user", "root",
                "ansible_ssh_private_key_file", "~/.ssh/cluster"));
        assertEquals("10.0.0.1:2222", host.destination());
        assertEquals("root", host.user());
        assertEquals(Optional.of(HOME.resolve(".ssh/cluster")), host.privateKey());
    }

    @Test
    void findsTheJumpHostInTheCommonArguments() throws Exception {
        assertEquals(Optional.of(new HostSettings.Jump("bastion", 2200, Optional.of("ops"))),
                of(Map.of("ansible_ssh_common_args", "-o StrictHostKeyChecking=no -o ProxyJump=ops@bastion:2200")).jump());
        assertEquals(Optional.of(new HostSettings.Jump("bastion", 22, Optional.empty())),
                of(Map.of("ansible_ssh_common_args", "-J bastion")).jump());
        assertEquals(Optional.of(new HostSettings.Jump("10.0.0.254", 22, Optional.of("root"))),
                of(Map.of("jump_host", "root@10.0.0.254")).jump());
    }

    @Test
    void keepsAlivePerOpenSshDefaultsUnlessTheSshArgumentsSayOtherwise() throws Exception {
        assertEquals(new HostSettings.KeepAlive(15, 3), of(Map.of()).keepAlive());
        assertEquals(new HostSettings.KeepAlive(60, 10), of(Map.of("ansible_ssh_common_args",
                "-o StrictHostKeyChecking=no -o ServerAliveInterval=60 -oserveralivecountmax=10")).keepAlive());
        assertEquals(new HostSettings.KeepAlive(90, 3), of(Map.of("ansible_ssh_extra_args",
                "-o 'ServerAliveInterval 1m30s'")).keepAlive());
        assertEquals(new HostSettings.KeepAlive(0, 3), of(Map.of("ansible_ssh_common_args",
                "-o ServerAliveInterval=0")).keepAlive());
        assertTrue(of(Map.of("ansible_ssh_common_args", "-o ServerAliveInterval=0")).keepAlive().off());
    }

    @Test
    void takesTheFirstKeepaliveValueGivenAsSshDoes() throws Exception {
        // ssh gets ansible_ssh_args, then the common, then the extra arguments, and keeps an option's first value.
        HostSettings host = of(Map.of("ansible_ssh_args", "-C -o ServerAliveInterval=20",
                "ansible_ssh_common_args", "-o ServerAliveInterval=30 -o ServerAliveCountMax=5",
                "ansible_ssh_extra_args", "-o ServerAliveInterval=40 -o ServerAliveCountMax=6"));
        assertEquals(new HostSettings.KeepAlive(20, 5), host.keepAlive());
        // Not an option of its own: a word that merely ends in the name.
        assertEquals(new HostSettings.KeepAlive(15, 3), of(Map.of("ansible_ssh_common_args",
                "-o XServerAliveInterval=99")).keepAlive());
    }

    @Test
    void refusesAKeepaliveThatIsNotANumber() {
        UnreachableException interval = assertThrows(UnreachableException.class,
                () -> of(Map.of("ansible_ssh_common_args", "-o ServerAliveInterval=soon")));
        assertEquals("host node01: ServerAliveInterval in ansible_ssh_common_args must be a time in seconds (30) or"
                + " with units (1m30s), got 'soon'", interval.getMessage());
        UnreachableException count = assertThrows(UnreachableException.class,
                () -> of(Map.of("ansible_ssh_extra_args", "-o ServerAliveCountMax=-1")));
        assertEquals("host node01: ServerAliveCountMax in ansible_ssh_extra_args must be a whole number, got '-1'",
                count.getMessage());
    }

    @Test
    void refusesAChainOfJumpHostsAndABadPort() {
        UnreachableException chain = assertThrows(UnreachableException.class,
                () -> of(Map.of("jump_host", "a,b")));
        assertTrue(chain.getMessage().contains("not supported yet"), chain.getMessage());
        UnreachableException port = assertThrows(UnreachableException.class, () -> of(Map.of("ansible_port", "ssh")));
        assertEquals("host node01: ansible_port must be a port number (1-65535), got 'ssh'", port.getMessage());
    }

    @Test
    void keepsTheBecomePasswordOutOfItsDescription() throws Exception {
        HostSettings host = of(Map.of("ansible_become", true, "ansible_become_password", "hunter2"));
        assertFalse(host.toString().contains("hunter2"), host.toString());
    }
}
