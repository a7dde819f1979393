package org.attn4j.bench.run;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.attn4j.api.Backend;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;

/**
 * A backend seen through a timer: every scope it opens hands out ops whose {@code attention} and
 * {@code writeSlice} calls add their wall time to {@link #attentionNanos()} and {@link #cacheWriteNanos()}; every
 * other call passes straight through. The CPU backends compute synchronously, so a call's wall time is its cost.
 * Not thread-safe: one generation at a time.
 */
final class OpTimer {
    private final Backend backend;
    private long attention;
    private long cacheWrite;

    /**
     * @param real the backend to time
     */
    OpTimer(Backend real) {
        this.backend = proxy(Backend.class, real, (method, args) -> {
            Object result = call(real, method, args);
            return method.getName().equals("newScope") ? scope((Scope) result) : result;
        });
    }

    /** @return the timed backend, to build a model on */
    Backend backend() {
        return backend;
    }

    /** @return nanoseconds spent in {@code attention} since the last {@link #reset()} */
    long attentionNanos() {
        return attention;
    }

    /** @return nanoseconds spent in {@code writeSlice} since the last {@link #reset()} */
    long cacheWriteNanos() {
        return cacheWrite;
    }

    /** Sets both counters to zero. */
    void reset() {
        attention = 0;
        cacheWrite = 0;
    }

    private Scope scope(Scope real) {
        return proxy(Scope.class, real, (method, args) -> {
            Object result = call(real, method, args);
            return method.getName().equals("ops") ? ops((Ops) result) : result;
        });
    }

    private Ops ops(Ops real) {
        return proxy(Ops.class, real, (method, args) -> {
            long start = System.nanoTime();
            Object result = call(real, method, args);
            long spent = System.nanoTime() - start;
            switch (method.getName()) {
                case "attention" -> attention += spent;
                case "writeSlice" -> cacheWrite += spent;
                default -> {
                }
            }
            return result;
        });
    }

    private interface Handler {
        Object handle(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T real, Handler handler) {
        InvocationHandler h = (self, method, args) -> switch (method.getName()) {
            case "equals" -> self == args[0];
            case "hashCode" -> System.identityHashCode(self);
            case "toString" -> real.toString();
            default -> handler.handle(method, args);
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
