package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostNamesTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"node01", "node01.example.com", "gpu_1", "_gateway", "Rack1-N02", "10.0.0.1", "fe80::1",
        "fe80::1%eth0", "::ffff:10.0.0.1", "nœud01"})
    void acceptsDnsNamesAndAddresses(String name) {
        assertEquals(HostNames.Kind.ADDRESS, HostNames.check(name));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"gpu@rack1", "web+1", "node-", "node_"})
    void takesOtherSafeNamesForAliases(String name) {
        assertEquals(HostNames.Kind.ALIAS, HostNames.check(name));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            -oProxyCommand=x | starts with '-', which ssh would read as an option
            h;touch x        | holds ';'
            `node 1`         | holds whitespace
            h$(id)           | holds '$'
            h'id             | holds '''
            h"id             | holds '"'
            a&b              | holds '&'
            a>b              | holds '>'
            node*            | holds '*'
            ../etc           | holds '/'
            a=b              | holds '='
            h:22:x           | holds ':'
            .hidden          | is not a DNS name, an IP address or an alias
            """)
    void refusesNamesThatAreNotSafeOnACommandLine(String name, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostNames.check(name));
        assertTrue(e.getMessage().startsWith("host name '" + name + "' " + why), e.getMessage());
    }

    @Test
    void refusesEmptyNullAndOtherwiseUnsafeNames() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check(""))
                .getMessage().startsWith("a host name cannot be empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check(null))
                .getMessage().startsWith("a host name cannot be null"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check("a\u0000b"))
                .getMessage().startsWith("host name 'a\\u0000b' holds a control character"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check("a\tb"))
                .getMessage().startsWith("host name 'a\\u0009b' holds whitespace"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check("a|b"))
                .getMessage().startsWith("host name 'a|b' holds '|'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.check("h`id`"))
                .getMessage().startsWith("host name 'h`id`' holds '`'"));
    }

    @Test
    void checksTheAddressAndTheUserSshWouldGet() {
        assertDoesNotThrow(() -> HostNames.checkVariable("ansible_host", "10.0.0.1"));
        assertDoesNotThrow(() -> HostNames.checkVariable("ansible_host", "node01.example.com."));
        assertDoesNotThrow(() -> HostNames.checkVariable("ansible_host", "fe80::1%eth0"));
        assertDoesNotThrow(() -> HostNames.checkVariable("ansible_user", "deploy.user@corp"));
        assertDoesNotThrow(() -> HostNames.checkVariable("ansible_user", null));
        assertDoesNotThrow(() -> HostNames.checkVariable("motd", "; anything goes elsewhere"));
        assertEquals("ansible_host '-oProxyCommand=x' starts with '-', which ssh would read as an option; it must be"
                + " a DNS name or an IP address", assertThrows(IllegalArgumentException.class,
                () -> HostNames.checkVariable("ansible_host", "-oProxyCommand=x")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.checkVariable("ansible_host", "a b"))
                .getMessage().startsWith("ansible_host 'a b' holds whitespace"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.checkVariable("ansible_host", "gpu@x"))
                .getMessage().startsWith("ansible_host 'gpu@x' is not a DNS name or an IP address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.checkVariable("ansible_user", "root;id"))
                .getMessage().startsWith("ansible_user 'root;id' holds ';'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.checkVariable("ansible_ssh_user", "-lroot"))
                .getMessage().startsWith("ansible_ssh_user '-lroot' starts with '-'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> HostNames.checkVariable("ansible_user", java.util.List.of("root")))
                .getMessage().startsWith("ansible_user must be a string"));
    }
}
