package dev.provision.modules.system;

import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import java.util.Optional;

/** What {@code apt_repository} and {@code yum_repository} share about the files they write. */
final class RepoFiles {
    private RepoFiles() {
    }

    /**
     * A {@code mode} as four octal digits ({@code 644}, {@code 0644}, {@code 0o644} -> {@code 0644});
     * symbolic modes are refused here (a repository file's mode is written whole).
     */
    static Optional<String> mode(Optional<String> written) throws ModuleException {
        if (written.isEmpty()) {
            return Optional.empty();
        }
        String digits = written.get().strip();
        if (digits.startsWith("0o")) {
            digits = digits.substring(2);
        }
        if (!digits.matches("[0-7]{3,4}")) {
            throw new ModuleException("mode '" + written.get() + "' is not an octal mode such as '0644'");
        }
        return Optional.of(FileStat.octal(Integer.parseInt(digits, 8)));
    }

    /** A file name for {@code param}: not empty, no {@code /}, not hidden (no {@code ..}). */
    static String fileName(String param, String name, String directory) throws ModuleException {
        if (name.isEmpty() || name.contains("/") || name.contains("\0") || name.startsWith(".")) {
            throw new ModuleException(param + " '" + name + "' must name a file in " + directory
                    + " (no '/', not starting with '.')");
        }
        return name;
    }
}
