module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<256x1024xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg3: tensor<1024x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg4: tensor<256x8x32xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg5: tensor<8x32x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>}, %arg6: tensor<256x8x32xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg7: tensor<256x8x32xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg8: tensor<16x128x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}, %arg9: tensor<16x128x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}) -> (tensor<256xbf16> {jax.result_info = "result[0]['ln1']"}, tensor<256xbf16> {jax.result_info = "result[0]['ln2']"}, tensor<256x1024xbf16> {jax.result_info = "result[0]['w1']"}, tensor<1024x256xbf16> {jax.result_info = "result[0]['w2']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wk']"}, tensor<8x32x256xbf16> {jax.result_info = "result[0]['wo']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wq']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wv']"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg8 : (tensor<16x128x256xbf16>) -> tensor<16x128x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<16x128x1xf32>
    %5 = stablehlo.convert %4 : (tensor<16x128x1xf32>) -> tensor<16x128x1xbf16>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %7 = stablehlo.subtract %arg8, %6 : tensor<16x128x256xbf16>
    %8 = stablehlo.multiply %7, %7 : tensor<16x128x256xbf16>
    %9 = stablehlo.convert %8 : (tensor<16x128x256xbf16>) -> tensor<16x128x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %13 = stablehlo.divide %11, %12 : tensor<16x128x1xf32>
    %14 = stablehlo.convert %13 : (tensor<16x128x1xf32>) -> tensor<16x128x1xbf16>
    %15 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %16 = stablehlo.subtract %arg8, %15 : tensor<16x128x256xbf16>
    %cst_3 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<16x128x1xbf16>
    %18 = stablehlo.add %14, %17 : tensor<16x128x1xbf16>
    %19 = stablehlo.rsqrt %18 : tensor<16x128x1xbf16>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %21 = stablehlo.multiply %16, %20 : tensor<16x128x256xbf16>
    %22 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<16x128x256xbf16>
    %24 = stablehlo.multiply %21, %23 : tensor<16x128x256xbf16>
    %25 = stablehlo.dot_general %24, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x8x32xbf16>
    %26 = stablehlo.dot_general %24, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x8x32xbf16>
    %27 = stablehlo.dot_general %24, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x8x32xbf16>
    %28 = stablehlo.dot_general %25, %26, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<16x128x8x32xbf16>) -> tensor<16x8x128x128xbf16>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %29 = stablehlo.sqrt %cst_4 : tensor<f32>
    %30 = stablehlo.convert %29 : (tensor<f32>) -> tensor<bf16>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<bf16>) -> tensor<16x8x128x128xbf16>
    %32 = stablehlo.divide %28, %31 : tensor<16x8x128x128xbf16>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %33 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<128x128xi1>
    %34 = call @tril(%33) : (tensor<128x128xi1>) -> tensor<128x128xi1>
    %cst_5 = stablehlo.constant dense<-3.389530e+38> : tensor<bf16>
    %35:2 = call @_where(%34, %32, %cst_5) : (tensor<128x128xi1>, tensor<16x8x128x128xbf16>, tensor<bf16>) -> (tensor<16x8x128x128xbf16>, tensor<16x8x128x128xi1>)
    %36 = stablehlo.convert %35#0 : (tensor<16x8x128x128xbf16>) -> tensor<16x8x128x128xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<16x8x128x128xf32>, tensor<f32>) -> tensor<16x8x128xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x8x128xf32>
    %39 = stablehlo.maximum %38, %37 : tensor<16x8x128xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<16x8x128xf32>) -> tensor<16x8x128x1xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2, 3] : (tensor<16x8x128x1xf32>) -> tensor<16x8x128x128xf32>
    %42 = stablehlo.subtract %36, %41 : tensor<16x8x128x128xf32>
    %43 = stablehlo.exponential %42 : tensor<16x8x128x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.reduce(%43 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<16x8x128x128xf32>, tensor<f32>) -> tensor<16x8x128xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<16x8x128xf32>) -> tensor<16x8x128x1xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2, 3] : (tensor<16x8x128x1xf32>) -> tensor<16x8x128x128xf32>
    %47 = stablehlo.divide %43, %46 : tensor<16x8x128x128xf32>
    %48 = stablehlo.multiply %45, %45 : tensor<16x8x128x1xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x8x128x1xf32>
    %50 = stablehlo.divide %49, %48 : tensor<16x8x128x1xf32>
    %51 = stablehlo.convert %47 : (tensor<16x8x128x128xf32>) -> tensor<16x8x128x128xbf16>
    %52 = stablehlo.dot_general %27, %51, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<16x8x128x128xbf16>) -> tensor<16x8x32x128xbf16>
    %53 = stablehlo.transpose %52, dims = [0, 3, 1, 2] : (tensor<16x8x32x128xbf16>) -> tensor<16x128x8x32xbf16>
    %54 = stablehlo.dot_general %53, %arg5, contracting_dims = [2, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<8x32x256xbf16>) -> tensor<16x128x256xbf16>
    %55 = stablehlo.add %arg8, %54 : tensor<16x128x256xbf16>
    %56 = stablehlo.convert %55 : (tensor<16x128x256xbf16>) -> tensor<16x128x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%56 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %cst_11 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %60 = stablehlo.divide %58, %59 : tensor<16x128x1xf32>
    %61 = stablehlo.convert %60 : (tensor<16x128x1xf32>) -> tensor<16x128x1xbf16>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %63 = stablehlo.subtract %55, %62 : tensor<16x128x256xbf16>
    %64 = stablehlo.multiply %63, %63 : tensor<16x128x256xbf16>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %65 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<16x128x256xbf16>
    %66 = stablehlo.multiply %65, %63 : tensor<16x128x256xbf16>
    %67 = stablehlo.convert %64 : (tensor<16x128x256xbf16>) -> tensor<16x128x256xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.reduce(%67 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %cst_14 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %71 = stablehlo.divide %69, %70 : tensor<16x128x1xf32>
    %72 = stablehlo.convert %71 : (tensor<16x128x1xf32>) -> tensor<16x128x1xbf16>
    %73 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %74 = stablehlo.subtract %55, %73 : tensor<16x128x256xbf16>
    %cst_15 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
    %75 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<16x128x1xbf16>
    %76 = stablehlo.add %72, %75 : tensor<16x128x1xbf16>
    %77 = stablehlo.rsqrt %76 : tensor<16x128x1xbf16>
    %78 = stablehlo.divide %77, %76 : tensor<16x128x1xbf16>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<bf16>
    %79 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<16x128x1xbf16>
    %80 = stablehlo.multiply %79, %78 : tensor<16x128x1xbf16>
    %81 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %82 = stablehlo.multiply %74, %81 : tensor<16x128x256xbf16>
    %83 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
    %84 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<16x128x256xbf16>
    %85 = stablehlo.multiply %82, %84 : tensor<16x128x256xbf16>
    %86 = stablehlo.dot_general %85, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<256x1024xbf16>) -> tensor<16x128x1024xbf16>
    %87 = stablehlo.multiply %86, %86 : tensor<16x128x1024xbf16>
    %88 = stablehlo.multiply %87, %86 : tensor<16x128x1024xbf16>
    %89 = stablehlo.multiply %86, %86 : tensor<16x128x1024xbf16>
    %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %90 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %91 = stablehlo.multiply %90, %89 : tensor<16x128x1024xbf16>
    %cst_18 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %92 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %93 = stablehlo.multiply %92, %88 : tensor<16x128x1024xbf16>
    %94 = stablehlo.add %86, %93 : tensor<16x128x1024xbf16>
    %cst_19 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %95 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %96 = stablehlo.multiply %95, %94 : tensor<16x128x1024xbf16>
    %97 = stablehlo.tanh %96 : tensor<16x128x1024xbf16>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %98 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %99 = stablehlo.subtract %98, %97 : tensor<16x128x1024xbf16>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %100 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %101 = stablehlo.add %100, %97 : tensor<16x128x1024xbf16>
    %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %102 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %103 = stablehlo.multiply %102, %101 : tensor<16x128x1024xbf16>
    %104 = stablehlo.multiply %86, %103 : tensor<16x128x1024xbf16>
    %105 = stablehlo.dot_general %104, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xbf16>, tensor<1024x256xbf16>) -> tensor<16x128x256xbf16>
    %106 = stablehlo.add %55, %105 : tensor<16x128x256xbf16>
    %107 = stablehlo.convert %106 : (tensor<16x128x256xbf16>) -> tensor<16x128x256xf32>
    %108 = stablehlo.subtract %107, %arg9 : tensor<16x128x256xf32>
    %109 = stablehlo.multiply %108, %108 : tensor<16x128x256xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %111 = stablehlo.multiply %110, %108 : tensor<16x128x256xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %112 = stablehlo.reduce(%109 init: %cst_24) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<f32>
    %cst_25 = stablehlo.constant dense<5.242880e+05> : tensor<f32>
    %113 = stablehlo.divide %112, %cst_25 : tensor<f32>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_27 = stablehlo.constant dense<5.242880e+05> : tensor<f32>
    %114 = stablehlo.divide %cst_26, %cst_27 : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %114, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %116 = stablehlo.multiply %115, %111 : tensor<16x128x256xf32>
    %117 = stablehlo.convert %116 : (tensor<16x128x256xf32>) -> tensor<16x128x256xbf16>
    %118 = stablehlo.dot_general %117, %104, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<16x128x1024xbf16>) -> tensor<256x1024xbf16>
    %119 = stablehlo.transpose %118, dims = [1, 0] : (tensor<256x1024xbf16>) -> tensor<1024x256xbf16>
    %120 = stablehlo.dot_general %117, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<1024x256xbf16>) -> tensor<16x128x1024xbf16>
    %121 = stablehlo.multiply %86, %120 : tensor<16x128x1024xbf16>
    %122 = stablehlo.multiply %120, %103 : tensor<16x128x1024xbf16>
    %cst_28 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %123 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %124 = stablehlo.multiply %123, %121 : tensor<16x128x1024xbf16>
    %125 = stablehlo.multiply %124, %99 : tensor<16x128x1024xbf16>
    %126 = stablehlo.multiply %125, %97 : tensor<16x128x1024xbf16>
    %127 = stablehlo.add %125, %126 : tensor<16x128x1024xbf16>
    %cst_29 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %128 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %129 = stablehlo.multiply %128, %127 : tensor<16x128x1024xbf16>
    %130 = stablehlo.add %122, %129 : tensor<16x128x1024xbf16>
    %cst_30 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %131 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<bf16>) -> tensor<16x128x1024xbf16>
    %132 = stablehlo.multiply %131, %129 : tensor<16x128x1024xbf16>
    %133 = stablehlo.multiply %132, %91 : tensor<16x128x1024xbf16>
    %134 = stablehlo.add %130, %133 : tensor<16x128x1024xbf16>
    %135 = stablehlo.dot_general %134, %85, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xbf16>, tensor<16x128x256xbf16>) -> tensor<1024x256xbf16>
    %136 = stablehlo.transpose %135, dims = [1, 0] : (tensor<1024x256xbf16>) -> tensor<256x1024xbf16>
    %137 = stablehlo.dot_general %134, %arg2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xbf16>, tensor<256x1024xbf16>) -> tensor<16x128x256xbf16>
    %138 = stablehlo.multiply %82, %137 : tensor<16x128x256xbf16>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %139 = stablehlo.reduce(%138 init: %cst_31) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
    %140 = stablehlo.reshape %139 : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
    %141 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<16x128x256xbf16>
    %142 = stablehlo.multiply %137, %141 : tensor<16x128x256xbf16>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %143 = stablehlo.reduce(%140 init: %cst_32) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
    %144 = stablehlo.multiply %74, %142 : tensor<16x128x256xbf16>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %145 = stablehlo.reduce(%144 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xbf16>, tensor<bf16>) -> tensor<16x128xbf16>
    %146 = stablehlo.reshape %145 : (tensor<16x128xbf16>) -> tensor<16x128x1xbf16>
    %147 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<16x128x1xbf16>) -> tensor<16x128x256xbf16>
    %148 = stablehlo.multiply %142, %147 : tensor<16x128x256xbf16>
    %149 = stablehlo.multiply %146, %80 : tensor<16x128x1xbf16>
    %150 = stablehlo.negate %148 : tensor<16x128x256xbf16>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %151 = stablehlo.reduce(%150 init: %cst_34) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xbf16>, tensor<bf16>) -> tensor<16x128xbf16>
    %152 = stablehlo.reshape %151 : (tensor<16x128xbf16>) -> tensor<16x128x1xbf16>
    %153 = stablehlo.add %117, %148 : tensor<16x128x256xbf16>
    %154 = stablehlo.convert %149 : (tensor<16x128x1xbf16>) -> tensor<16x128x1xf32>
    %cst_35 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %155 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %156 = stablehlo.divide %154, %155 : tensor<16x128x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %157 = stablehlo.reduce(%156 init: %cst_36) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %158 = stablehlo.broadcast_in_dim %157, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %159 = stablehlo.convert %158 : (tensor<16x128x256xf32>) -> tensor<16x128x256xbf16>
    %160 = stablehlo.multiply %159, %66 : tensor<16x128x256xbf16>
    %161 = stablehlo.negate %160 : tensor<16x128x256xbf16>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %162 = stablehlo.reduce(%161 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xbf16>, tensor<bf16>) -> tensor<16x128xbf16>
    %163 = stablehlo.reshape %162 : (tensor<16x128xbf16>) -> tensor<16x128x1xbf16>
    %164 = stablehlo.add %153, %160 : tensor<16x128x256xbf16>
    %165 = stablehlo.add %152, %163 : tensor<16x128x1xbf16>
    %166 = stablehlo.convert %165 : (tensor<16x128x1xbf16>) -> tensor<16x128x1xf32>
    %cst_38 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %167 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %168 = stablehlo.divide %166, %167 : tensor<16x128x1xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%168 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %171 = stablehlo.convert %170 : (tensor<16x128x256xf32>) -> tensor<16x128x256xbf16>
    %172 = stablehlo.add %164, %171 : tensor<16x128x256xbf16>
    %173 = stablehlo.dot_general %172, %53, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<16x128x8x32xbf16>) -> tensor<256x8x32xbf16>
    %174 = stablehlo.transpose %173, dims = [1, 2, 0] : (tensor<256x8x32xbf16>) -> tensor<8x32x256xbf16>
    %175 = stablehlo.dot_general %172, %arg5, contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xbf16>, tensor<8x32x256xbf16>) -> tensor<16x128x8x32xbf16>
    %176 = stablehlo.transpose %175, dims = [0, 2, 3, 1] : (tensor<16x128x8x32xbf16>) -> tensor<16x8x32x128xbf16>
    %177 = stablehlo.dot_general %176, %27, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x8x32x128xbf16>, tensor<16x128x8x32xbf16>) -> tensor<16x8x128x128xbf16>
    %178 = stablehlo.dot_general %176, %51, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x8x32x128xbf16>, tensor<16x8x128x128xbf16>) -> tensor<16x8x32x128xbf16>
    %179 = stablehlo.transpose %178, dims = [0, 3, 1, 2] : (tensor<16x8x32x128xbf16>) -> tensor<16x128x8x32xbf16>
    %180 = stablehlo.convert %177 : (tensor<16x8x128x128xbf16>) -> tensor<16x8x128x128xf32>
    %181 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<16x8x128x1xf32>) -> tensor<16x8x128x128xf32>
    %182 = stablehlo.multiply %180, %181 : tensor<16x8x128x128xf32>
    %183 = stablehlo.multiply %182, %43 : tensor<16x8x128x128xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %184 = stablehlo.reduce(%183 init: %cst_40) applies stablehlo.add across dimensions = [3] : (tensor<16x8x128x128xf32>, tensor<f32>) -> tensor<16x8x128xf32>
    %185 = stablehlo.reshape %184 : (tensor<16x8x128xf32>) -> tensor<16x8x128x1xf32>
    %186 = stablehlo.negate %185 : tensor<16x8x128x1xf32>
    %187 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2, 3] : (tensor<16x8x128x1xf32>) -> tensor<16x8x128x128xf32>
    %188 = stablehlo.divide %180, %187 : tensor<16x8x128x128xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %189 = stablehlo.reduce(%186 init: %cst_41) applies stablehlo.add across dimensions = [3] : (tensor<16x8x128x1xf32>, tensor<f32>) -> tensor<16x8x128xf32>
    %190 = stablehlo.broadcast_in_dim %189, dims = [0, 1, 2] : (tensor<16x8x128xf32>) -> tensor<16x8x128x128xf32>
    %191 = stablehlo.add %188, %190 : tensor<16x8x128x128xf32>
    %192 = stablehlo.multiply %191, %43 : tensor<16x8x128x128xf32>
    %193 = stablehlo.convert %192 : (tensor<16x8x128x128xf32>) -> tensor<16x8x128x128xbf16>
    %194 = call @_where_0(%35#1, %193) : (tensor<16x8x128x128xi1>, tensor<16x8x128x128xbf16>) -> tensor<16x8x128x128xbf16>
    %195 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<bf16>) -> tensor<16x8x128x128xbf16>
    %196 = stablehlo.divide %194, %195 : tensor<16x8x128x128xbf16>
    %197 = stablehlo.dot_general %196, %25, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8x128x128xbf16>, tensor<16x128x8x32xbf16>) -> tensor<16x8x128x32xbf16>
    %198 = stablehlo.transpose %197, dims = [0, 2, 1, 3] : (tensor<16x8x128x32xbf16>) -> tensor<16x128x8x32xbf16>
    %199 = stablehlo.dot_general %196, %26, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8x128x128xbf16>, tensor<16x128x8x32xbf16>) -> tensor<16x8x128x32xbf16>
    %200 = stablehlo.transpose %199, dims = [0, 2, 1, 3] : (tensor<16x8x128x32xbf16>) -> tensor<16x128x8x32xbf16>
    %201 = stablehlo.dot_general %179, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<16x128x256xbf16>) -> tensor<8x32x256xbf16>
    %202 = stablehlo.transpose %201, dims = [2, 0, 1] : (tensor<8x32x256xbf16>) -> tensor<256x8x32xbf16>
    %203 = stablehlo.dot_general %179, %arg7, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x256xbf16>
    %204 = stablehlo.dot_general %198, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<16x128x256xbf16>) -> tensor<8x32x256xbf16>
    %205 = stablehlo.transpose %204, dims = [2, 0, 1] : (tensor<8x32x256xbf16>) -> tensor<256x8x32xbf16>
    %206 = stablehlo.dot_general %198, %arg4, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x256xbf16>
    %207 = stablehlo.add %203, %206 : tensor<16x128x256xbf16>
    %208 = stablehlo.dot_general %200, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<16x128x256xbf16>) -> tensor<8x32x256xbf16>
    %209 = stablehlo.transpose %208, dims = [2, 0, 1] : (tensor<8x32x256xbf16>) -> tensor<256x8x32xbf16>
    %210 = stablehlo.dot_general %200, %arg6, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<16x128x8x32xbf16>, tensor<256x8x32xbf16>) -> tensor<16x128x256xbf16>
    %211 = stablehlo.add %207, %210 : tensor<16x128x256xbf16>
    %212 = stablehlo.multiply %21, %211 : tensor<16x128x256xbf16>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %213 = stablehlo.reduce(%212 init: %cst_42) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
    %214 = stablehlo.reshape %213 : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %215 = stablehlo.reduce(%214 init: %cst_43) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
    %cst_44 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %216 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
    %217 = stablehlo.multiply %216, %215 : tensor<256xbf16>
    %218 = stablehlo.subtract %arg0, %217 : tensor<256xbf16>
    %cst_45 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %219 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
    %220 = stablehlo.multiply %219, %143 : tensor<256xbf16>
    %221 = stablehlo.subtract %arg1, %220 : tensor<256xbf16>
    %cst_46 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %222 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<bf16>) -> tensor<256x1024xbf16>
    %223 = stablehlo.multiply %222, %136 : tensor<256x1024xbf16>
    %224 = stablehlo.subtract %arg2, %223 : tensor<256x1024xbf16>
    %cst_47 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %225 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<bf16>) -> tensor<1024x256xbf16>
    %226 = stablehlo.multiply %225, %119 : tensor<1024x256xbf16>
    %227 = stablehlo.subtract %arg3, %226 : tensor<1024x256xbf16>
    %cst_48 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %228 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<bf16>) -> tensor<256x8x32xbf16>
    %229 = stablehlo.multiply %228, %205 : tensor<256x8x32xbf16>
    %230 = stablehlo.subtract %arg4, %229 : tensor<256x8x32xbf16>
    %cst_49 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %231 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<bf16>) -> tensor<8x32x256xbf16>
    %232 = stablehlo.multiply %231, %174 : tensor<8x32x256xbf16>
    %233 = stablehlo.subtract %arg5, %232 : tensor<8x32x256xbf16>
    %cst_50 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %234 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<bf16>) -> tensor<256x8x32xbf16>
    %235 = stablehlo.multiply %234, %209 : tensor<256x8x32xbf16>
    %236 = stablehlo.subtract %arg6, %235 : tensor<256x8x32xbf16>
    %cst_51 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %237 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<bf16>) -> tensor<256x8x32xbf16>
    %238 = stablehlo.multiply %237, %202 : tensor<256x8x32xbf16>
    %239 = stablehlo.subtract %arg7, %238 : tensor<256x8x32xbf16>
    return %218, %221, %224, %227, %230, %233, %236, %239, %113 : tensor<256xbf16>, tensor<256xbf16>, tensor<256x1024xbf16>, tensor<1024x256xbf16>, tensor<256x8x32xbf16>, tensor<8x32x256xbf16>, tensor<256x8x32xbf16>, tensor<256x8x32xbf16>, tensor<f32>
  }
  func.func private @tril(%arg0: tensor<128x128xi1>) -> tensor<128x128xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<128x128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<128x128xi32>
    %2 = stablehlo.add %0, %1 : tensor<128x128xi32>
    %3 = stablehlo.iota dim = 1 : tensor<128x128xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<128x128xi32>, tensor<128x128xi32>) -> tensor<128x128xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<128x128xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<128x128xi1>, tensor<128x128xi1>
    return %6 : tensor<128x128xi1>
  }
  func.func private @_where(%arg0: tensor<128x128xi1>, %arg1: tensor<16x8x128x128xbf16>, %arg2: tensor<bf16>) -> (tensor<16x8x128x128xbf16>, tensor<16x8x128x128xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<128x128xi1>) -> tensor<16x8x128x128xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<16x8x128x128xbf16>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<16x8x128x128xi1>, tensor<16x8x128x128xbf16>
    return %2, %0 : tensor<16x8x128x128xbf16>, tensor<16x8x128x128xi1>
  }
  func.func private @_where_0(%arg0: tensor<16x8x128x128xi1>, %arg1: tensor<16x8x128x128xbf16>) -> tensor<16x8x128x128xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x8x128x128xbf16>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<16x8x128x128xi1>, tensor<16x8x128x128xbf16>
    return %1 : tensor<16x8x128x128xbf16>
  }
}
