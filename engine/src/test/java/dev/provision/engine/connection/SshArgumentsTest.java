package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SshArgumentsTest {
    private static List<String> unused(String args) {
        return SshArguments.unused(Map.of("ansible_ssh_common_args", args), "ansible_ssh_common_args");
    }

    @Test
    void namesWhatProvisionDoesNotActOnByNameOnly() {
        assertEquals(List.of("-o StrictHostKeyChecking", "-o UserKnownHostsFile", "-C"),
                unused("-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -C"));
        // A value may be a secret: never repeated.
        assertEquals(List.of("-o ProxyCommand", "-i"),
                unused("-o 'ProxyCommand=sshpass -p hunter2 ssh -W %h:%p gw' -i /keys/id_rsa"));
        assertEquals(List.of("-o ConnectTimeout", "-p", "-vvv"), unused("-oConnectTimeout=30 -p 2222 -vvv"));
    }

    @Test
    void leavesOutWhatItActsOn() {
        assertEquals(List.of(), unused("-o ProxyJump=ops@bastion -J bastion -o ServerAliveInterval=60"
                + " -o 'serveralivecountmax 5'"));
        assertEquals(List.of("-o ControlPersist"), unused("-J bastion -o ControlPersist=60s -o ControlPersist=30s"));
        assertEquals(List.of(), SshArguments.unused(Map.of(), "ansible_ssh_common_args"));
        assertEquals(List.of("(unbalanced quotes)"), unused("-o 'ServerAliveInterval=60"));
    }
}
