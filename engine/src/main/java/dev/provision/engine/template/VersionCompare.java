package dev.provision.engine.template;

import freemarker.template.SimpleNumber;
import freemarker.template.TemplateMethodModelEx;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateModelException;
import freemarker.template.TemplateNumberModel;
import freemarker.template.TemplateScalarModel;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code version_compare(a, b)}: -1, 0 or 1 as version {@code a} is older than, the same as or newer
 * than {@code b}, compared as Ansible's {@code version} test does by default (Python's LooseVersion:
 * runs of digits compare as numbers, runs of lower-case letters and everything else as text, dots
 * only separate). {@code driver_version is version('535', '>=')} is
 * {@code version_compare(driver_version, "535") >= 0}. A number against a text at the same place
 * ({@code 1.0} against {@code 1.a}) fails, as it does in Ansible.
 */
final class VersionCompare implements TemplateMethodModelEx {
    static final String NAME = "version_compare";
    private static final Pattern COMPONENT = Pattern.compile("\\d+|[a-z]+|\\.");

    @Override
    public Object exec(@SuppressWarnings("rawtypes") List arguments) throws TemplateModelException {
        if (arguments.size() != 2) {
            throw new TemplateModelException(NAME + " takes two versions (version_compare(a, b)), not " + arguments.size()
                    + " argument" + (arguments.size() == 1 ? "" : "s"));
        }
        String a = text((TemplateModel) arguments.get(0));
        String b = text((TemplateModel) arguments.get(1));
        return new SimpleNumber(compare(a, b));
    }

    /** -1, 0 or 1; a number and a text at the same place cannot be compared. */
    static int compare(String a, String b) throws TemplateModelException {
        List<Object> x = components(a);
        List<Object> y = components(b);
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            Object p = x.get(i);
            Object q = y.get(i);
            int c;
            if (p instanceof java.math.BigInteger m && q instanceof java.math.BigInteger n) {
                c = m.compareTo(n);
            } else if (p instanceof String s && q instanceof String t) {
                c = s.compareTo(t);
            } else {
                throw new TemplateModelException(NAME + " cannot compare '" + a + "' with '" + b + "': '" + p + "' and '" + q
                        + "' are a number and a text at the same place");
            }
            if (c != 0) {
                return Integer.signum(c);
            }
        }
        return Integer.compare(x.size(), y.size());
    }

    /** LooseVersion's parts: numbers, lower-case words and whatever lies between them; dots dropped. */
    static List<Object> components(String version) {
        List<Object> parts = new ArrayList<>();
        Matcher m = COMPONENT.matcher(version);
        int at = 0;
        while (m.find()) {
            if (m.start() > at) {
                parts.add(version.substring(at, m.start()));
            }
            String part = m.group();
            if (Character.isDigit(part.charAt(0))) {
                parts.add(new java.math.BigInteger(part));
            } else if (!part.equals(".")) {
                parts.add(part);
            }
            at = m.end();
        }
        if (at < version.length()) {
            parts.add(version.substring(at));
        }
        return parts;
    }

    private static String text(TemplateModel value) throws TemplateModelException {
        if (value instanceof TemplateScalarModel s) {
            return s.getAsString();
        }
        if (value instanceof TemplateNumberModel n) {
            return n.getAsNumber().toString();
        }
        throw new TemplateModelException(NAME + " compares versions written as text or numbers, not "
                + (value == null ? "an undefined value" : "a " + value.getClass().getSimpleName()));
    }
}
