// SPDX-License-Identifier: Apache-2.0

// The filters' earlier names, which did not say their order (and `LowPassFilter` was also the
// name of the attitude estimator's second-order filter). Kept for one release.

@available(*, deprecated, renamed: "FirstOrderLowPassFilter")
public typealias LowPassFilter<Value: FilterableValue> = FirstOrderLowPassFilter<Value>

@available(*, deprecated, renamed: "FirstOrderHighPassFilter")
public typealias HighPassFilter<Value: FilterableValue> = FirstOrderHighPassFilter<Value>

@available(*, deprecated, renamed: "SecondOrderButterworthFilter")
public typealias ButterworthFilter<Value: FilterableValue> = SecondOrderButterworthFilter<Value>
