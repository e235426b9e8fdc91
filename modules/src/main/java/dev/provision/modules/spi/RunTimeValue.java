package dev.provision.modules.spi;

/**
 * A {@link Plan#result} value that only running the plan can tell. The engine puts the real value
 * in its place before anyone sees the result (the output, {@code register}, the JSON report):
 * <ul>
 *   <li>after the plan has run and its last program exited 0: the value this constant names;
 *   <li>in a dry run, which runs nothing: the placeholder the engine registers for every output not
 *       known yet, so that a later task using it is marked as depending on this run;
 *   <li>otherwise (the plan failed, or planned nothing): no value, the key is left out.
 * </ul>
 */
public enum RunTimeValue {
    /**
     * What the plan's last program printed on standard output, trailing whitespace stripped: the
     * path {@code mktemp} made.
     */
    LAST_STDOUT
}
