package dev.provision.engine.template;

import freemarker.template.AdapterTemplateModel;
import freemarker.template.TemplateBooleanModel;
import freemarker.template.TemplateCollectionModel;
import freemarker.template.TemplateDateModel;
import freemarker.template.TemplateHashModel;
import freemarker.template.TemplateHashModelEx;
import freemarker.template.TemplateHashModelEx2;
import freemarker.template.TemplateMethodModel;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateModelException;
import freemarker.template.TemplateModelIterator;
import freemarker.template.TemplateNumberModel;
import freemarker.template.TemplateScalarModel;
import freemarker.template.TemplateSequenceModel;
import freemarker.ext.util.WrapperTemplateModel;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns what a FreeMarker expression evaluated to back into the plain Java values of YAML: String,
 * Boolean, Number, Date, List, Map. A value that came from the variables is returned as the very
 * object that was put in; values built by the expression (a list literal, {@code ?split}, a
 * {@code ?filter}) are copied into unmodifiable lists and maps, with missing (null) items left out.
 */
final class NativeValues {
    /** As deep as a YAML value may nest; a value that contains itself ({@code .main}) stops here too. */
    private static final int MAX_DEPTH = 64;

    private final Limits limits;
    private final Map<TemplateModel, Boolean> open = new IdentityHashMap<>();
    private int items;
    private long chars;

    private NativeValues(Limits limits) {
        this.limits = limits;
    }

    /** A value that cannot become a plain Java value: a function, or one too large or too deep. */
    static final class NotAValue extends TemplateModelException {
        NotAValue(String problem) {
            super(problem);
        }
    }

    /**
     * @param limits how many list items and map entries (nested ones included) and how much text the
     *     value may hold: a range such as {@code 1..} is a list, and an infinite one
     */
    static Object toJava(TemplateModel model, Limits limits) throws TemplateModelException {
        return new NativeValues(limits).convert(model, 0);
    }

    private Object convert(TemplateModel model, int depth) throws TemplateModelException {
        if (model instanceof AdapterTemplateModel adapter) {
            return normalized(adapter.getAdaptedObject(Object.class));
        }
        if (model instanceof WrapperTemplateModel wrapper) {
            return normalized(wrapper.getWrappedObject());
        }
        // Scalars before containers: a multi-typed value such as the empty default of `x!` is text.
        if (model instanceof TemplateBooleanModel bool) {
            return bool.getAsBoolean();
        }
        if (model instanceof TemplateNumberModel number) {
            return normalized(number.getAsNumber());
        }
        if (model instanceof TemplateScalarModel scalar) {
            String text = scalar.getAsString();
            chars += text.length();
            if (chars > limits.outputChars()) {
                throw new NotAValue("it holds more than " + LimitExceeded.characters(limits.outputChars()) + " of text");
            }
            return text;
        }
        if (model instanceof TemplateDateModel date) {
            return date.getAsDate();
        }
        if (depth >= MAX_DEPTH) {
            throw new NotAValue("it nests more than " + MAX_DEPTH + " levels deep");
        }
        if (open.put(model, Boolean.TRUE) != null) {
            throw new NotAValue("it contains itself");
        }
        Object container = container(model, depth + 1);
        open.remove(model);
        return container;
    }

    private Object container(TemplateModel model, int depth) throws TemplateModelException {
        if (model instanceof TemplateSequenceModel sequence) {
            int size = sequence.size();
            count(size);
            List<Object> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                addPresent(list, sequence.get(i), depth);
            }
            return Collections.unmodifiableList(list);
        }
        if (model instanceof TemplateHashModelEx2 hash) {
            Map<String, Object> entries = new LinkedHashMap<>();
            TemplateHashModelEx2.KeyValuePairIterator pairs = hash.keyValuePairIterator();
            while (pairs.hasNext()) {
                count(1);
                TemplateHashModelEx2.KeyValuePair pair = pairs.next();
                putPresent(entries, pair.getKey(), pair.getValue(), depth);
            }
            return Collections.unmodifiableMap(entries);
        }
        if (model instanceof TemplateHashModelEx hash) {
            Map<String, Object> entries = new LinkedHashMap<>();
            TemplateModelIterator keys = hash.keys().iterator();
            while (keys.hasNext()) {
                count(1);
                TemplateModel key = keys.next();
                putPresent(entries, key, hash.get(String.valueOf(convert(key, depth))), depth);
            }
            return Collections.unmodifiableMap(entries);
        }
        if (model instanceof TemplateCollectionModel collection) {
            List<Object> list = new ArrayList<>();
            TemplateModelIterator iterator = collection.iterator();
            while (iterator.hasNext()) {
                count(1);
                addPresent(list, iterator.next(), depth);
            }
            return Collections.unmodifiableList(list);
        }
        throw new NotAValue("it is " + kindOf(model) + ", which is not a value");
    }

    private void count(int more) throws NotAValue {
        if (more > limits.valueItems() - items) {
            throw new NotAValue("it holds more than " + limits.valueItems() + " items");
        }
        items += more;
    }

    /** "a string", "a list", ...: how a sysadmin would name the kind of value, for error messages. */
    static String kindOf(TemplateModel model) {
        if (model == null) {
            return "undefined";
        }
        if (model instanceof TemplateBooleanModel) {
            return "a boolean";
        }
        if (model instanceof TemplateNumberModel) {
            return "a number";
        }
        if (model instanceof TemplateScalarModel) {
            return "a string";
        }
        if (model instanceof TemplateDateModel) {
            return "a date";
        }
        if (model instanceof TemplateSequenceModel || model instanceof TemplateCollectionModel) {
            return "a list";
        }
        if (model instanceof TemplateHashModel) {
            return "a map";
        }
        if (model instanceof TemplateMethodModel) {
            return "a function";
        }
        return "a macro or directive";
    }

    /** Whole numbers as Long (or BigInteger when too large) unless they already are Integer or Long. */
    static Object normalized(Object value) {
        if (value instanceof BigDecimal decimal && isWhole(decimal)) {
            BigInteger whole = decimal.toBigIntegerExact();
            return whole.bitLength() < Long.SIZE ? (Object) whole.longValue() : whole;
        }
        if (value instanceof BigDecimal decimal) {
            // Division computes with a dozen decimals: 1 / 2 is 0.500000000000, and should read 0.5.
            return decimal.stripTrailingZeros();
        }
        if (value instanceof BigInteger whole && whole.bitLength() < Long.SIZE) {
            return whole.longValue();
        }
        return value;
    }

    private static boolean isWhole(BigDecimal decimal) {
        return decimal.signum() == 0 || decimal.stripTrailingZeros().scale() <= 0;
    }

    private void addPresent(List<Object> list, TemplateModel item, int depth) throws TemplateModelException {
        if (item != null) {
            list.add(convert(item, depth));
        }
    }

    private void putPresent(Map<String, Object> entries, TemplateModel key, TemplateModel value, int depth)
            throws TemplateModelException {
        if (value != null) {
            entries.put(String.valueOf(convert(key, depth)), convert(value, depth));
        }
    }
}
