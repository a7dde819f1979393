package org.attn4j.models.bert;

import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Hugging Face's {@code BertForSequenceClassification}, the shape of cross-encoders such as
 * {@code cross-encoder/ms-marco-MiniLM-L-6-v2}: a BERT encoder with its pooler and a linear classifier.
 * <pre>
 *   h      = bert(input_ids, token_type_ids, attention_mask)     [B, L, d]
 *   pooled = tanh(bert.pooler.dense(h[:, 0]))                    [B, d]
 *   logits = classifier(pooled)                                  [B, num_labels]   (dropout is off in inference)
 * </pre>
 * State_dict names {@code bert.*} (the pooler required) and {@code classifier.weight [num_labels, d]},
 * {@code classifier.bias [num_labels]}; loading is strict. The classifier takes each text's pooled row as a sequence
 * of its own ({@code [B, 1, d]}), so that over an I8 weight each text is quantized alone.
 */
public final class BertForSequenceClassification implements SequenceClassifier {
    private final BertModel bert;
    private final Linear classifier;

    private BertForSequenceClassification(BertModel bert, Linear classifier) {
        this.bert = bert;
        this.classifier = classifier;
    }

    /**
     * @param params {@code bert.*} and {@code classifier.*}
     * @param config the encoder's hyper-parameters
     * @param numLabels the classifier's outputs, at least 1
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or non-finite
     *     parameter
     */
    public static BertForSequenceClassification load(StateDict params, BertConfig config, int numLabels) {
        if (numLabels < 1) {
            throw new IllegalArgumentException("BertForSequenceClassification.load: argument numLabels is "
                    + numLabels + "; it must be at least 1");
        }
        int d = config.hiddenSize();
        return params.load("BertForSequenceClassification", p -> {
            BertModel bert = BertModel.build(p.select("bert."), config);
            if (!bert.hasPooler()) {
                p.get("bert.pooler.dense.weight", Shape.of(d, d));
                p.get("bert.pooler.dense.bias", Shape.of(d));
            }
            return new BertForSequenceClassification(bert, Linear.load(p.select("classifier."), d, numLabels, true));
        });
    }

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this model reading its parameters from {@code parameters}
     */
    @Override
    public BertForSequenceClassification bind(Parameters parameters) {
        return new BertForSequenceClassification(bert.bind(parameters), classifier.bind(parameters));
    }

    /** @return the encoder's hyper-parameters */
    @Override
    public BertConfig config() {
        return bert.config();
    }

    /** @return {@code num_labels} */
    @Override
    public int numLabels() {
        return classifier.outFeatures();
    }

    /**
     * @param scope receives the result
     * @param input a padded batch of pairs (type ids 0 for the first text, 1 for the second)
     * @param dtype the compute dtype (the bound dtype, for a bound model)
     * @return the logits {@code [B, num_labels]}
     */
    @Override
    public Tensor logits(Scope scope, BertInput input, DType dtype) {
        try (Scope work = scope.backend().newScope()) {
            Tensor pooled = bert.pool(work, bert.forward(work, input, dtype));
            int batch = input.batch();
            Tensor logits = classifier.forward(work, work.ops().reshape(pooled, batch, 1, bert.config().hiddenSize()));
            return scope.adopt(work.ops().reshape(logits, batch, numLabels()));
        }
    }
}
