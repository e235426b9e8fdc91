package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

/**
 * What {@code stat} says of a path.
 *
 * @param linkTarget the symlink's target for {@link Type#LINK}, else the empty string
 * @param device the file system's device number, 0 when unknown
 * @param inode the inode number, 0 when unknown: with {@code device}, which paths are one file
 *     (hard links)
 * @param links how many hard links the file has (1 when unknown)
 */
public record FileStat(Type type, int mode, String owner, String group, long size, String linkTarget,
                       long device, long inode, long links) {
    public enum Type { FILE, DIRECTORY, LINK, OTHER }

    public FileStat {
        requireNonNull(type, "type cannot be null");
        requireNonNull(owner, "owner cannot be null");
        requireNonNull(group, "group cannot be null");
        requireNonNull(linkTarget, "linkTarget cannot be null");
    }

    /** A stat that does not say which file it is (no inode known, one link). */
    public FileStat(Type type, int mode, String owner, String group, long size, String linkTarget) {
        this(type, mode, owner, group, size, linkTarget, 0, 0, 1);
    }

    /** Whether both stats are known to describe the same file (one inode on one device: hard links). */
    public boolean sameFileAs(FileStat other) {
        return inode != 0 && inode == other.inode && device == other.device;
    }

    /** This stat with other permission bits, owner and group (the same file). */
    public FileStat withAttributes(int mode, String owner, String group) {
        return new FileStat(type, mode, owner, group, size, linkTarget, device, inode, links);
    }

    /** The permission bits as four octal digits, e.g. {@code 0644}. */
    public String octalMode() {
        return octal(mode & 07777);
    }

    /**
     * {@code bits} as at least four octal digits, e.g. {@code 0644}: what {@code %04o} gives, without a
     * {@code Formatter} for every file of every host (0.5 % of a 1 000-host no-op's CPU).
     */
    public static String octal(int bits) {
        String digits = Integer.toOctalString(bits);
        return digits.length() >= 4 ? digits : "0000".substring(digits.length()) + digits;
    }
}
