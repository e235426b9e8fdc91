package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;

/**
 * {@code loop:} (or one of Ansible's {@code with_*} forms) with its {@code loop_control}.
 *
 * @param items a YAML list (items may hold {@code ${...}}) or a string expression that evaluates to one;
 *     for {@link Lookup#DICT} a mapping or an expression that gives one
 * @param lookup how the evaluated items become the loop's items (Ansible's lookup behind {@code with_X})
 * @param loopVar the variable each item is bound to; {@code item} by default
 * @param label optional {@code loop_control.label} expression for the output; empty for none
 */
public record Loop(Object items, Lookup lookup, String loopVar, String label, SourcePosition position) {
    public Loop {
        requireNonNull(items, "items cannot be null");
        requireNonNull(lookup, "lookup cannot be null");
        requireNonNull(loopVar, "loopVar cannot be null");
        requireNonNull(label, "label cannot be null");
        requireNonNull(position, "position cannot be null");
    }

    /** The {@code with_X} keywords there are, and what each makes of its value (all on the controller). */
    public enum Lookup {
        /** {@code loop:}, {@code with_list:}; {@code with_items:} flattens one level when the list is written out */
        LIST("loop"),
        /** {@code with_dict:}: a mapping becomes a list of {@code {key, value}} */
        DICT("with_dict"),
        /** {@code with_fileglob:}: patterns become the sorted controller files they match (files/ of the role, then the playbook's) */
        FILEGLOB("with_fileglob"),
        /** {@code with_first_found:}: candidate names (or {@code files}/{@code paths}/{@code skip}) become the first one that exists */
        FIRST_FOUND("with_first_found"),
        /** {@code with_subelements:}: {@code [list, "key.path", {skip_missing}]} becomes {@code [element, sub-item]} pairs */
        SUBELEMENTS("with_subelements");

        private final String keyword;

        Lookup(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }

        /** The lookup behind a loop keyword; empty for a keyword that is not a loop. */
        public static java.util.Optional<Lookup> of(String keyword) {
            return switch (keyword) {
                case "loop", "with_items", "with_list" -> java.util.Optional.of(LIST);
                case "with_dict" -> java.util.Optional.of(DICT);
                case "with_fileglob" -> java.util.Optional.of(FILEGLOB);
                case "with_first_found" -> java.util.Optional.of(FIRST_FOUND);
                case "with_subelements" -> java.util.Optional.of(SUBELEMENTS);
                default -> java.util.Optional.empty();
            };
        }
    }
}
