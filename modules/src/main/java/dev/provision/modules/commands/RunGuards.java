package dev.provision.modules.commands;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import java.util.Optional;

/** {@code creates} and {@code removes}: the only idempotence a command the user wrote can have. */
final class RunGuards {
    private RunGuards() {
    }

    /**
     * Why the command need not run, or empty when it must. Relative paths count from
     * {@code chdir} when one is given, as in Ansible.
     */
    static Optional<String> skipReason(Params params, HostView host) throws ModuleException {
        Optional<String> chdir = params.optString("chdir");
        if (params.has("creates")) {
            String path = resolve(params.string("creates"), chdir);
            if (host.stat(path).isPresent()) {
                return Optional.of("skipped, since " + path + " exists");
            }
        }
        if (params.has("removes")) {
            String path = resolve(params.string("removes"), chdir);
            if (host.stat(path).isEmpty()) {
                return Optional.of("skipped, since " + path + " does not exist");
            }
        }
        return Optional.empty();
    }

    private static String resolve(String path, Optional<String> chdir) {
        if (path.startsWith("/") || chdir.isEmpty()) {
            return path;
        }
        return chdir.get().endsWith("/") ? chdir.get() + path : chdir.get() + "/" + path;
    }
}
