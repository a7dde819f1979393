package org.attn4j.backend.ejml;

import java.util.Random;
import org.attn4j.api.Backend;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh scope of one shared backend per test, closed afterwards, and a seeded random source. */
abstract class ScopedTest {
    static final Backend BACKEND = new EjmlBackendProvider().create();

    Scope scope;
    Ops ops;
    Random random;

    @BeforeEach
    void openScope() {
        scope = BACKEND.newScope();
        ops = scope.ops();
        random = new Random(42);
    }

    @AfterEach
    void closeScope() {
        scope.close();
    }
}
