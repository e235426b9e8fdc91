package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

/**
 * What {@code stat} says of a path.
 *
 * @param linkTarget the symlink's target for {@link Type#LINK}, else the empty string
 */
public record FileStat(Type type, int mode, String owner, String group, long size, String linkTarget) {
    public enum Type { FILE, DIRECTORY, LINK, OTHER }

    public FileStat {
        requireNonNull(type, "type cannot be null");
        requireNonNull(owner, "owner cannot be null");
        requireNonNull(group, "group cannot be null");
        requireNonNull(linkTarget, "linkTarget cannot be null");
    }

    /** The permission bits as four octal digits, e.g. {@code 0644}. */
    public String octalMode() {
        return String.format("%04o", mode & 07777);
    }
}
