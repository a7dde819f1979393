package org.attn4j.models.bert;

import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Hugging Face's {@code XLMRobertaForSequenceClassification}, the shape of multilingual cross-encoders such as
 * {@code BAAI/bge-reranker-v2-m3}: an XLM-RoBERTa encoder and RoBERTa's classification head on the {@code <s>} token.
 * <pre>
 *   h      = roberta(input_ids, attention_mask)                      [B, L, d]
 *   z      = tanh(classifier.dense(h[:, 0]))                         [B, d]
 *   logits = classifier.out_proj(z)                                  [B, num_labels]   (dropout is off in inference)
 * </pre>
 * State_dict names {@code roberta.*} (a pooler, which this head does not use, is loaded if present),
 * {@code classifier.dense.weight [d, d]}, {@code classifier.dense.bias [d]},
 * {@code classifier.out_proj.weight [num_labels, d]}, {@code classifier.out_proj.bias [num_labels]}; loading is
 * strict.
 */
public final class XlmRobertaForSequenceClassification implements SequenceClassifier {
    private final XlmRobertaModel roberta;
    private final Linear dense;
    private final Linear outProj;

    private XlmRobertaForSequenceClassification(XlmRobertaModel roberta, Linear dense, Linear outProj) {
        this.roberta = roberta;
        this.dense = dense;
        this.outProj = outProj;
    }

    /**
     * @param params {@code roberta.*} and {@code classifier.*}
     * @param config the encoder's hyper-parameters
     * @param numLabels the classifier's outputs, at least 1
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    public static XlmRobertaForSequenceClassification load(StateDict params, XlmRobertaConfig config,
                                                           int numLabels) {
        if (numLabels < 1) {
            throw new IllegalArgumentException("XlmRobertaForSequenceClassification.load: argument numLabels is "
                    + numLabels + "; it must be at least 1");
        }
        int d = config.hiddenSize();
        return params.load("XLMRobertaForSequenceClassification", p -> new XlmRobertaForSequenceClassification(
                XlmRobertaModel.build(p.select("roberta."), config),
                Linear.load(p.select("classifier.dense."), d, d, true),
                Linear.load(p.select("classifier.out_proj."), d, numLabels, true)));
    }

    @Override
    public XlmRobertaForSequenceClassification bind(Parameters parameters) {
        return new XlmRobertaForSequenceClassification(roberta.bind(parameters), dense.bind(parameters),
                outProj.bind(parameters));
    }

    @Override
    public XlmRobertaConfig config() {
        return roberta.config();
    }

    @Override
    public int numLabels() {
        return outProj.outFeatures();
    }

    /**
     * @param scope receives the result
     * @param input a padded batch of texts or pairs ({@code <s> a </s></s> b </s>}); type ids are ignored
     * @param dtype the compute dtype (the bound dtype, for a bound model)
     * @return the logits {@code [B, num_labels]}
     */
    @Override
    public Tensor logits(Scope scope, BertInput input, DType dtype) {
        try (Scope work = scope.backend().newScope()) {
            Tensor first = BertLayer.firstToken(work, roberta.forward(work, input, dtype));
            return scope.adopt(BertLayer.rows(work, outProj.forward(work, BertLayer.tanh(work, dense.forward(work, first)))));
        }
    }
}
