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

    private NativeValues() {
    }

    static Object toJava(TemplateModel model) throws TemplateModelException {
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
            return scalar.getAsString();
        }
        if (model instanceof TemplateDateModel date) {
            return date.getAsDate();
        }
        if (model instanceof TemplateSequenceModel sequence) {
            List<Object> items = new ArrayList<>(sequence.size());
            for (int i = 0; i < sequence.size(); i++) {
                addPresent(items, sequence.get(i));
            }
            return Collections.unmodifiableList(items);
        }
        if (model instanceof TemplateHashModelEx2 hash) {
            Map<String, Object> entries = new LinkedHashMap<>();
            TemplateHashModelEx2.KeyValuePairIterator pairs = hash.keyValuePairIterator();
            while (pairs.hasNext()) {
                TemplateHashModelEx2.KeyValuePair pair = pairs.next();
                putPresent(entries, pair.getKey(), pair.getValue());
            }
            return Collections.unmodifiableMap(entries);
        }
        if (model instanceof TemplateHashModelEx hash) {
            Map<String, Object> entries = new LinkedHashMap<>();
            TemplateModelIterator keys = hash.keys().iterator();
            while (keys.hasNext()) {
                TemplateModel key = keys.next();
                putPresent(entries, key, hash.get(String.valueOf(toJava(key))));
            }
            return Collections.unmodifiableMap(entries);
        }
        if (model instanceof TemplateCollectionModel collection) {
            List<Object> items = new ArrayList<>();
            TemplateModelIterator iterator = collection.iterator();
            while (iterator.hasNext()) {
                addPresent(items, iterator.next());
            }
            return Collections.unmodifiableList(items);
        }
        throw new TemplateModelException("it is " + kindOf(model) + ", which is not a value");
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

    private static void addPresent(List<Object> items, TemplateModel item) throws TemplateModelException {
        if (item != null) {
            items.add(toJava(item));
        }
    }

    private static void putPresent(Map<String, Object> entries, TemplateModel key, TemplateModel value)
            throws TemplateModelException {
        if (value != null) {
            entries.put(String.valueOf(toJava(key)), toJava(value));
        }
    }
}
