package dev.provision.engine.cli;

import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.KnownHostsStore;
import dev.provision.engine.connection.SshConnectionFactory;
import java.nio.file.Path;

/** Builds the run's connection factory from the command line: host-key store, policy, keys, timeouts. */
final class ConnectionSetup {
    private ConnectionSetup() {
    }

    static ConnectionFactory factory(ProvisionCommand cmd) {
        Path store = cmd.knownHosts != null ? cmd.knownHosts
                : System.getenv("PROVISION_KNOWN_HOSTS") != null ? Path.of(System.getenv("PROVISION_KNOWN_HOSTS"))
                : KnownHostsStore.defaultFile();
        KnownHostsStore knownHosts = new KnownHostsStore(store,
                cmd.strictHostKeys ? KnownHostsStore.Policy.STRICT : KnownHostsStore.Policy.ACCEPT_NEW, cmd.replaced);
        SshConnectionFactory.Settings settings = SshConnectionFactory.Settings.defaults().withConnectTimeout(cmd.connectTimeout());
        if (cmd.privateKey != null) {
            settings = settings.withPrivateKey(cmd.privateKey);
        }
        return new SshConnectionFactory(knownHosts, settings);
    }
}
