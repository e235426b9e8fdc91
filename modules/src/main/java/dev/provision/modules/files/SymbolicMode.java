package dev.provision.modules.files;

import dev.provision.modules.spi.ModuleException;
import java.util.regex.Pattern;

/**
 * A symbolic mode ({@code u+rwx,g-w,o=}, {@code a+X}) applied to a current mode the way Ansible's
 * file modules apply it ({@code AnsibleModule._symbolic_mode_to_octal}): clauses left to right,
 * {@code X} counting the execute bits as they stand at that clause, {@code u}/{@code g}/{@code o}
 * as permissions copying another class's bits. An empty class list means all classes, minus the
 * umask's bits; the planner cannot ask the host for its umask, so that case assumes {@code 022}.
 */
final class SymbolicMode {
    private static final Pattern CLAUSE = Pattern.compile("[ugoa]*([-+=][rwxXstugo]*)+");
    private static final int ASSUMED_UMASK = 022;

    private SymbolicMode() {
    }

    static boolean looksSymbolic(String written) {
        return !written.isEmpty() && !Character.isDigit(written.charAt(0));
    }

    /** @throws ModuleException naming the mode when a clause is malformed */
    static void validate(String written) throws ModuleException {
        for (String clause : written.split(",", -1)) {
            if (!CLAUSE.matcher(clause).matches()) {
                throw new ModuleException("mode '" + written + "' is neither octal ('0644') nor symbolic ('u+rwx,g-w')");
            }
        }
    }

    /** The mode after applying {@code written} to {@code current} (permission bits of a file or directory). */
    static int apply(String written, int current, boolean directory) {
        int mode = current & 07777;
        for (String clause : written.split(",")) {
            int i = 0;
            while (i < clause.length() && "ugoa".indexOf(clause.charAt(i)) >= 0) {
                i++;
            }
            String users = clause.substring(0, i);
            boolean useUmask = users.isEmpty();
            if (users.isEmpty() || users.contains("a")) {
                users = "ugo";
            }
            while (i < clause.length()) {
                char operator = clause.charAt(i++);
                int from = i;
                while (i < clause.length() && "+-=".indexOf(clause.charAt(i)) < 0) {
                    i++;
                }
                String perms = clause.substring(from, i);
                for (char user : users.toCharArray()) {
                    int bits = 0;
                    for (char perm : perms.toCharArray()) {
                        bits |= bits(user, perm, mode, directory, useUmask);
                    }
                    mode = operate(user, operator, bits, mode);
                }
            }
        }
        return mode;
    }

    private static int bits(char user, char perm, int mode, boolean directory, boolean useUmask) {
        int shift = switch (user) {
            case 'u' -> 6;
            case 'g' -> 3;
            default -> 0;
        };
        int allowed = useUmask ? ~ASSUMED_UMASK & 0777 : 0777;
        return switch (perm) {
            case 'r' -> 4 << shift & allowed;
            case 'w' -> 2 << shift & allowed;
            case 'x' -> 1 << shift & allowed;
            case 'X' -> directory || (mode & 0111) != 0 ? 1 << shift : 0;
            case 's' -> user == 'u' ? 04000 : user == 'g' ? 02000 : 0;
            case 't' -> user == 'o' ? 01000 : 0;
            // u, g, o: that class's current bits, moved to this class's place
            default -> {
                int source = switch (perm) {
                    case 'u' -> mode >> 6 & 7;
                    case 'g' -> mode >> 3 & 7;
                    default -> mode & 7;
                };
                yield source << shift;
            }
        };
    }

    private static int operate(char user, char operator, int bits, int mode) {
        return switch (operator) {
            case '=' -> {
                int mask = switch (user) {
                    case 'u' -> 0700 | 04000;
                    case 'g' -> 0070 | 02000;
                    default -> 0007 | 01000;
                };
                yield mode & ~mask | bits;
            }
            case '+' -> mode | bits;
            default -> mode & ~bits;
        };
    }
}
