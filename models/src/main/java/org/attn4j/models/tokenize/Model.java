package org.attn4j.models.tokenize;

import java.util.List;

/** A tokenization model: one pre-tokenized word to its tokens and ids, appended to the two lists. */
interface Model {

    void encode(String word, List<Integer> ids, List<String> tokens);
}
