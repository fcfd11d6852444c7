module @jit_local_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256xbf16>, %arg1: tensor<256xbf16>, %arg2: tensor<256x1024xbf16>, %arg3: tensor<1024x256xbf16>, %arg4: tensor<256x8x32xbf16>, %arg5: tensor<8x32x256xbf16>, %arg6: tensor<256x8x32xbf16>, %arg7: tensor<256x8x32xbf16>, %arg8: tensor<16x128x256xbf16>, %arg9: tensor<16x128x256xf32>) -> (tensor<256xbf16> {jax.result_info = "result[0]['ln1']"}, tensor<256xbf16> {jax.result_info = "result[0]['ln2']"}, tensor<256x1024xbf16> {jax.result_info = "result[0]['w1']"}, tensor<1024x256xbf16> {jax.result_info = "result[0]['w2']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wk']"}, tensor<8x32x256xbf16> {jax.result_info = "result[0]['wo']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wq']"}, tensor<256x8x32xbf16> {jax.result_info = "result[0]['wv']"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0:9 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9) in_shardings=[<@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{}, {"model"}]>, <@mesh, [{"model"}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, [{"model"}, {}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, [{"data"}, {}, {}]>, <@mesh, [{"data"}, {}, {}]>] out_shardings=[<@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{}, {"model"}]>, <@mesh, [{"model"}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, [{"model"}, {}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, [{}, {"model"}, {}]>, <@mesh, []>] manual_axes={"data", "model"} (%arg10: tensor<256xbf16>, %arg11: tensor<256xbf16>, %arg12: tensor<256x512xbf16>, %arg13: tensor<512x256xbf16>, %arg14: tensor<256x4x32xbf16>, %arg15: tensor<4x32x256xbf16>, %arg16: tensor<256x4x32xbf16>, %arg17: tensor<256x4x32xbf16>, %arg18: tensor<4x128x256xbf16>, %arg19: tensor<4x128x256xf32>) {
      %1 = stablehlo.convert %arg18 : (tensor<4x128x256xbf16>) -> tensor<4x128x256xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
      %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
      %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %5 = stablehlo.divide %3, %4 : tensor<4x128x1xf32>
      %6 = stablehlo.convert %5 : (tensor<4x128x1xf32>) -> tensor<4x128x1xbf16>
      %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %8 = stablehlo.subtract %arg18, %7 : tensor<4x128x256xbf16>
      %9 = stablehlo.multiply %8, %8 : tensor<4x128x256xbf16>
      %10 = stablehlo.convert %9 : (tensor<4x128x256xbf16>) -> tensor<4x128x256xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
      %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
      %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %14 = stablehlo.divide %12, %13 : tensor<4x128x1xf32>
      %15 = stablehlo.convert %14 : (tensor<4x128x1xf32>) -> tensor<4x128x1xbf16>
      %16 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %17 = stablehlo.subtract %arg18, %16 : tensor<4x128x256xbf16>
      %cst_3 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
      %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<4x128x1xbf16>
      %19 = stablehlo.add %15, %18 : tensor<4x128x1xbf16>
      %20 = stablehlo.rsqrt %19 : tensor<4x128x1xbf16>
      %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %22 = stablehlo.multiply %17, %21 : tensor<4x128x256xbf16>
      %23 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
      %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<4x128x256xbf16>
      %25 = stablehlo.multiply %22, %24 : tensor<4x128x256xbf16>
      %26 = stablehlo.dot_general %25, %arg16, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x4x32xbf16>
      %27 = stablehlo.dot_general %25, %arg14, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x4x32xbf16>
      %28 = stablehlo.dot_general %25, %arg17, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x4x32xbf16>
      %29 = stablehlo.dot_general %26, %27, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x128x4x32xbf16>) -> tensor<4x4x128x128xbf16>
      %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %30 = stablehlo.sqrt %cst_4 : tensor<f32>
      %31 = stablehlo.convert %30 : (tensor<f32>) -> tensor<bf16>
      %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<bf16>) -> tensor<4x4x128x128xbf16>
      %33 = stablehlo.divide %29, %32 : tensor<4x4x128x128xbf16>
      %c = stablehlo.constant dense<true> : tensor<i1>
      %34 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<128x128xi1>
      %35 = func.call @tril(%34) : (tensor<128x128xi1>) -> tensor<128x128xi1>
      %cst_5 = stablehlo.constant dense<-3.389530e+38> : tensor<bf16>
      %36:2 = func.call @_where(%35, %33, %cst_5) : (tensor<128x128xi1>, tensor<4x4x128x128xbf16>, tensor<bf16>) -> (tensor<4x4x128x128xbf16>, tensor<4x4x128x128xi1>)
      %37 = stablehlo.convert %36#0 : (tensor<4x4x128x128xbf16>) -> tensor<4x4x128x128xf32>
      %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %38 = stablehlo.reduce(%37 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<4x4x128x128xf32>, tensor<f32>) -> tensor<4x4x128xf32>
      %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %39 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x4x128xf32>
      %40 = stablehlo.maximum %39, %38 : tensor<4x4x128xf32>
      %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2] : (tensor<4x4x128xf32>) -> tensor<4x4x128x1xf32>
      %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2, 3] : (tensor<4x4x128x1xf32>) -> tensor<4x4x128x128xf32>
      %43 = stablehlo.subtract %37, %42 : tensor<4x4x128x128xf32>
      %44 = stablehlo.exponential %43 : tensor<4x4x128x128xf32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %45 = stablehlo.reduce(%44 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<4x4x128x128xf32>, tensor<f32>) -> tensor<4x4x128xf32>
      %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2] : (tensor<4x4x128xf32>) -> tensor<4x4x128x1xf32>
      %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2, 3] : (tensor<4x4x128x1xf32>) -> tensor<4x4x128x128xf32>
      %48 = stablehlo.divide %44, %47 : tensor<4x4x128x128xf32>
      %49 = stablehlo.multiply %46, %46 : tensor<4x4x128x1xf32>
      %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x4x128x1xf32>
      %51 = stablehlo.divide %50, %49 : tensor<4x4x128x1xf32>
      %52 = stablehlo.convert %48 : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xbf16>
      %53 = stablehlo.dot_general %28, %52, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x4x128x128xbf16>) -> tensor<4x4x32x128xbf16>
      %54 = stablehlo.transpose %53, dims = [0, 3, 1, 2] : (tensor<4x4x32x128xbf16>) -> tensor<4x128x4x32xbf16>
      %55 = stablehlo.dot_general %54, %arg15, contracting_dims = [2, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x32x256xbf16>) -> tensor<4x128x256xbf16>
      %56 = "stablehlo.all_reduce"(%55) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %57 = stablehlo.add %arg18, %56 : tensor<4x128x256xbf16>
      %58 = stablehlo.convert %57 : (tensor<4x128x256xbf16>) -> tensor<4x128x256xf32>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %59 = stablehlo.reduce(%58 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
      %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
      %cst_11 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
      %61 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %62 = stablehlo.divide %60, %61 : tensor<4x128x1xf32>
      %63 = stablehlo.convert %62 : (tensor<4x128x1xf32>) -> tensor<4x128x1xbf16>
      %64 = stablehlo.broadcast_in_dim %63, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %65 = stablehlo.subtract %57, %64 : tensor<4x128x256xbf16>
      %66 = stablehlo.multiply %65, %65 : tensor<4x128x256xbf16>
      %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
      %67 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<4x128x256xbf16>
      %68 = stablehlo.multiply %67, %65 : tensor<4x128x256xbf16>
      %69 = stablehlo.convert %66 : (tensor<4x128x256xbf16>) -> tensor<4x128x256xf32>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %70 = stablehlo.reduce(%69 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
      %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
      %cst_14 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
      %72 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %73 = stablehlo.divide %71, %72 : tensor<4x128x1xf32>
      %74 = stablehlo.convert %73 : (tensor<4x128x1xf32>) -> tensor<4x128x1xbf16>
      %75 = stablehlo.broadcast_in_dim %63, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %76 = stablehlo.subtract %57, %75 : tensor<4x128x256xbf16>
      %cst_15 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
      %77 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<4x128x1xbf16>
      %78 = stablehlo.add %74, %77 : tensor<4x128x1xbf16>
      %79 = stablehlo.rsqrt %78 : tensor<4x128x1xbf16>
      %80 = stablehlo.divide %79, %78 : tensor<4x128x1xbf16>
      %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<bf16>
      %81 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<4x128x1xbf16>
      %82 = stablehlo.multiply %81, %80 : tensor<4x128x1xbf16>
      %83 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %84 = stablehlo.multiply %76, %83 : tensor<4x128x256xbf16>
      %85 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
      %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<4x128x256xbf16>
      %87 = stablehlo.multiply %84, %86 : tensor<4x128x256xbf16>
      %88 = stablehlo.dot_general %87, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<256x512xbf16>) -> tensor<4x128x512xbf16>
      %89 = stablehlo.multiply %88, %88 : tensor<4x128x512xbf16>
      %90 = stablehlo.multiply %89, %88 : tensor<4x128x512xbf16>
      %91 = stablehlo.multiply %88, %88 : tensor<4x128x512xbf16>
      %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
      %92 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %93 = stablehlo.multiply %92, %91 : tensor<4x128x512xbf16>
      %cst_18 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
      %94 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %95 = stablehlo.multiply %94, %90 : tensor<4x128x512xbf16>
      %96 = stablehlo.add %88, %95 : tensor<4x128x512xbf16>
      %cst_19 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
      %97 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %98 = stablehlo.multiply %97, %96 : tensor<4x128x512xbf16>
      %99 = stablehlo.tanh %98 : tensor<4x128x512xbf16>
      %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
      %100 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %101 = stablehlo.subtract %100, %99 : tensor<4x128x512xbf16>
      %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
      %102 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %103 = stablehlo.add %102, %99 : tensor<4x128x512xbf16>
      %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
      %104 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %105 = stablehlo.multiply %104, %103 : tensor<4x128x512xbf16>
      %106 = stablehlo.multiply %88, %105 : tensor<4x128x512xbf16>
      %107 = stablehlo.dot_general %106, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x512xbf16>, tensor<512x256xbf16>) -> tensor<4x128x256xbf16>
      %108 = "stablehlo.all_reduce"(%107) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %109 = stablehlo.add %57, %108 : tensor<4x128x256xbf16>
      %110 = stablehlo.convert %109 : (tensor<4x128x256xbf16>) -> tensor<4x128x256xf32>
      %111 = stablehlo.subtract %110, %arg19 : tensor<4x128x256xf32>
      %112 = stablehlo.multiply %111, %111 : tensor<4x128x256xf32>
      %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %113 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x128x256xf32>
      %114 = stablehlo.multiply %113, %111 : tensor<4x128x256xf32>
      %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %115 = stablehlo.reduce(%112 init: %cst_24) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<f32>
      %cst_25 = stablehlo.constant dense<1.310720e+05> : tensor<f32>
      %116 = stablehlo.divide %115, %cst_25 : tensor<f32>
      %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %117 = stablehlo.divide %cst_26, %cst_25 : tensor<f32>
      %118 = stablehlo.broadcast_in_dim %117, dims = [] : (tensor<f32>) -> tensor<4x128x256xf32>
      %119 = stablehlo.multiply %118, %114 : tensor<4x128x256xf32>
      %120 = stablehlo.convert %119 : (tensor<4x128x256xf32>) -> tensor<4x128x256xbf16>
      %121 = stablehlo.dot_general %120, %106, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<4x128x512xbf16>) -> tensor<256x512xbf16>
      %122 = stablehlo.transpose %121, dims = [1, 0] : (tensor<256x512xbf16>) -> tensor<512x256xbf16>
      %123 = stablehlo.dot_general %120, %arg13, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<512x256xbf16>) -> tensor<4x128x512xbf16>
      %124 = "stablehlo.all_reduce"(%122) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<512x256xbf16>) -> tensor<512x256xbf16>
      %125 = stablehlo.multiply %88, %123 : tensor<4x128x512xbf16>
      %126 = stablehlo.multiply %123, %105 : tensor<4x128x512xbf16>
      %127 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %128 = stablehlo.multiply %127, %125 : tensor<4x128x512xbf16>
      %129 = stablehlo.multiply %128, %101 : tensor<4x128x512xbf16>
      %130 = stablehlo.multiply %129, %99 : tensor<4x128x512xbf16>
      %131 = stablehlo.add %129, %130 : tensor<4x128x512xbf16>
      %132 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %133 = stablehlo.multiply %132, %131 : tensor<4x128x512xbf16>
      %134 = stablehlo.add %126, %133 : tensor<4x128x512xbf16>
      %135 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<4x128x512xbf16>
      %136 = stablehlo.multiply %135, %133 : tensor<4x128x512xbf16>
      %137 = stablehlo.multiply %136, %93 : tensor<4x128x512xbf16>
      %138 = stablehlo.add %134, %137 : tensor<4x128x512xbf16>
      %139 = stablehlo.dot_general %138, %87, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x512xbf16>, tensor<4x128x256xbf16>) -> tensor<512x256xbf16>
      %140 = stablehlo.transpose %139, dims = [1, 0] : (tensor<512x256xbf16>) -> tensor<256x512xbf16>
      %141 = stablehlo.dot_general %138, %arg12, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x512xbf16>, tensor<256x512xbf16>) -> tensor<4x128x256xbf16>
      %142 = "stablehlo.all_reduce"(%140) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x512xbf16>) -> tensor<256x512xbf16>
      %143 = "stablehlo.all_reduce"(%141) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %144 = stablehlo.multiply %84, %143 : tensor<4x128x256xbf16>
      %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %145 = stablehlo.reduce(%144 init: %cst_27) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x128x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
      %146 = stablehlo.reshape %145 : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
      %147 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2] : (tensor<1x1x256xbf16>) -> tensor<4x128x256xbf16>
      %148 = stablehlo.multiply %143, %147 : tensor<4x128x256xbf16>
      %149 = "stablehlo.all_reduce"(%146) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<1x1x256xbf16>) -> tensor<1x1x256xbf16>
      %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %150 = stablehlo.reduce(%149 init: %cst_28) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
      %151 = stablehlo.multiply %76, %148 : tensor<4x128x256xbf16>
      %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %152 = stablehlo.reduce(%151 init: %cst_29) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xbf16>, tensor<bf16>) -> tensor<4x128xbf16>
      %153 = stablehlo.reshape %152 : (tensor<4x128xbf16>) -> tensor<4x128x1xbf16>
      %154 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2] : (tensor<4x128x1xbf16>) -> tensor<4x128x256xbf16>
      %155 = stablehlo.multiply %148, %154 : tensor<4x128x256xbf16>
      %156 = stablehlo.multiply %153, %82 : tensor<4x128x1xbf16>
      %157 = stablehlo.negate %155 : tensor<4x128x256xbf16>
      %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %158 = stablehlo.reduce(%157 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xbf16>, tensor<bf16>) -> tensor<4x128xbf16>
      %159 = stablehlo.reshape %158 : (tensor<4x128xbf16>) -> tensor<4x128x1xbf16>
      %160 = stablehlo.add %120, %155 : tensor<4x128x256xbf16>
      %161 = stablehlo.convert %156 : (tensor<4x128x1xbf16>) -> tensor<4x128x1xf32>
      %162 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %163 = stablehlo.divide %161, %162 : tensor<4x128x1xf32>
      %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %164 = stablehlo.reduce(%163 init: %cst_31) applies stablehlo.add across dimensions = [2] : (tensor<4x128x1xf32>, tensor<f32>) -> tensor<4x128xf32>
      %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x256xf32>
      %166 = stablehlo.convert %165 : (tensor<4x128x256xf32>) -> tensor<4x128x256xbf16>
      %167 = stablehlo.multiply %166, %68 : tensor<4x128x256xbf16>
      %168 = stablehlo.negate %167 : tensor<4x128x256xbf16>
      %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %169 = stablehlo.reduce(%168 init: %cst_32) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xbf16>, tensor<bf16>) -> tensor<4x128xbf16>
      %170 = stablehlo.reshape %169 : (tensor<4x128xbf16>) -> tensor<4x128x1xbf16>
      %171 = stablehlo.add %160, %167 : tensor<4x128x256xbf16>
      %172 = stablehlo.add %159, %170 : tensor<4x128x1xbf16>
      %173 = stablehlo.convert %172 : (tensor<4x128x1xbf16>) -> tensor<4x128x1xf32>
      %174 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
      %175 = stablehlo.divide %173, %174 : tensor<4x128x1xf32>
      %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %176 = stablehlo.reduce(%175 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<4x128x1xf32>, tensor<f32>) -> tensor<4x128xf32>
      %177 = stablehlo.broadcast_in_dim %176, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x256xf32>
      %178 = stablehlo.convert %177 : (tensor<4x128x256xf32>) -> tensor<4x128x256xbf16>
      %179 = stablehlo.add %171, %178 : tensor<4x128x256xbf16>
      %180 = stablehlo.dot_general %179, %54, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<4x128x4x32xbf16>) -> tensor<256x4x32xbf16>
      %181 = stablehlo.transpose %180, dims = [1, 2, 0] : (tensor<256x4x32xbf16>) -> tensor<4x32x256xbf16>
      %182 = stablehlo.dot_general %179, %arg15, contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xbf16>, tensor<4x32x256xbf16>) -> tensor<4x128x4x32xbf16>
      %183 = "stablehlo.all_reduce"(%181) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x32x256xbf16>) -> tensor<4x32x256xbf16>
      %184 = stablehlo.transpose %182, dims = [0, 2, 3, 1] : (tensor<4x128x4x32xbf16>) -> tensor<4x4x32x128xbf16>
      %185 = stablehlo.dot_general %184, %28, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x4x32x128xbf16>, tensor<4x128x4x32xbf16>) -> tensor<4x4x128x128xbf16>
      %186 = stablehlo.dot_general %184, %52, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x4x32x128xbf16>, tensor<4x4x128x128xbf16>) -> tensor<4x4x32x128xbf16>
      %187 = stablehlo.transpose %186, dims = [0, 3, 1, 2] : (tensor<4x4x32x128xbf16>) -> tensor<4x128x4x32xbf16>
      %188 = stablehlo.convert %185 : (tensor<4x4x128x128xbf16>) -> tensor<4x4x128x128xf32>
      %189 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2, 3] : (tensor<4x4x128x1xf32>) -> tensor<4x4x128x128xf32>
      %190 = stablehlo.multiply %188, %189 : tensor<4x4x128x128xf32>
      %191 = stablehlo.multiply %190, %44 : tensor<4x4x128x128xf32>
      %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %192 = stablehlo.reduce(%191 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<4x4x128x128xf32>, tensor<f32>) -> tensor<4x4x128xf32>
      %193 = stablehlo.reshape %192 : (tensor<4x4x128xf32>) -> tensor<4x4x128x1xf32>
      %194 = stablehlo.negate %193 : tensor<4x4x128x1xf32>
      %195 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2, 3] : (tensor<4x4x128x1xf32>) -> tensor<4x4x128x128xf32>
      %196 = stablehlo.divide %188, %195 : tensor<4x4x128x128xf32>
      %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %197 = stablehlo.reduce(%194 init: %cst_35) applies stablehlo.add across dimensions = [3] : (tensor<4x4x128x1xf32>, tensor<f32>) -> tensor<4x4x128xf32>
      %198 = stablehlo.broadcast_in_dim %197, dims = [0, 1, 2] : (tensor<4x4x128xf32>) -> tensor<4x4x128x128xf32>
      %199 = stablehlo.add %196, %198 : tensor<4x4x128x128xf32>
      %200 = stablehlo.multiply %199, %44 : tensor<4x4x128x128xf32>
      %201 = stablehlo.convert %200 : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xbf16>
      %202 = func.call @_where_0(%36#1, %201) : (tensor<4x4x128x128xi1>, tensor<4x4x128x128xbf16>) -> tensor<4x4x128x128xbf16>
      %203 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<bf16>) -> tensor<4x4x128x128xbf16>
      %204 = stablehlo.divide %202, %203 : tensor<4x4x128x128xbf16>
      %205 = stablehlo.dot_general %204, %26, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x128x128xbf16>, tensor<4x128x4x32xbf16>) -> tensor<4x4x128x32xbf16>
      %206 = stablehlo.transpose %205, dims = [0, 2, 1, 3] : (tensor<4x4x128x32xbf16>) -> tensor<4x128x4x32xbf16>
      %207 = stablehlo.dot_general %204, %27, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x128x128xbf16>, tensor<4x128x4x32xbf16>) -> tensor<4x4x128x32xbf16>
      %208 = stablehlo.transpose %207, dims = [0, 2, 1, 3] : (tensor<4x4x128x32xbf16>) -> tensor<4x128x4x32xbf16>
      %209 = stablehlo.dot_general %187, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x128x256xbf16>) -> tensor<4x32x256xbf16>
      %210 = stablehlo.transpose %209, dims = [2, 0, 1] : (tensor<4x32x256xbf16>) -> tensor<256x4x32xbf16>
      %211 = stablehlo.dot_general %187, %arg17, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x256xbf16>
      %212 = "stablehlo.all_reduce"(%210) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %213 = "stablehlo.all_reduce"(%211) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %214 = stablehlo.dot_general %206, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x128x256xbf16>) -> tensor<4x32x256xbf16>
      %215 = stablehlo.transpose %214, dims = [2, 0, 1] : (tensor<4x32x256xbf16>) -> tensor<256x4x32xbf16>
      %216 = stablehlo.dot_general %206, %arg14, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x256xbf16>
      %217 = "stablehlo.all_reduce"(%215) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %218 = "stablehlo.all_reduce"(%216) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %219 = stablehlo.add %213, %218 : tensor<4x128x256xbf16>
      %220 = stablehlo.dot_general %208, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<4x128x256xbf16>) -> tensor<4x32x256xbf16>
      %221 = stablehlo.transpose %220, dims = [2, 0, 1] : (tensor<4x32x256xbf16>) -> tensor<256x4x32xbf16>
      %222 = stablehlo.dot_general %208, %arg16, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x128x4x32xbf16>, tensor<256x4x32xbf16>) -> tensor<4x128x256xbf16>
      %223 = "stablehlo.all_reduce"(%221) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %224 = "stablehlo.all_reduce"(%222) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
      %225 = stablehlo.add %219, %224 : tensor<4x128x256xbf16>
      %226 = stablehlo.multiply %22, %225 : tensor<4x128x256xbf16>
      %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %227 = stablehlo.reduce(%226 init: %cst_36) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x128x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
      %228 = stablehlo.reshape %227 : (tensor<256xbf16>) -> tensor<1x1x256xbf16>
      %229 = "stablehlo.all_reduce"(%228) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<1x1x256xbf16>) -> tensor<1x1x256xbf16>
      %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %230 = stablehlo.reduce(%229 init: %cst_37) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xbf16>, tensor<bf16>) -> tensor<256xbf16>
      %231 = "stablehlo.all_reduce"(%230) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256xbf16>) -> tensor<256xbf16>
      %232 = "stablehlo.all_reduce"(%150) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256xbf16>) -> tensor<256xbf16>
      %233 = "stablehlo.all_reduce"(%142) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x512xbf16>) -> tensor<256x512xbf16>
      %234 = "stablehlo.all_reduce"(%124) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<512x256xbf16>) -> tensor<512x256xbf16>
      %235 = "stablehlo.all_reduce"(%217) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %236 = "stablehlo.all_reduce"(%183) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<4x32x256xbf16>) -> tensor<4x32x256xbf16>
      %237 = "stablehlo.all_reduce"(%223) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %238 = "stablehlo.all_reduce"(%212) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<bf16>, %arg21: tensor<bf16>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<bf16>
        stablehlo.return %281 : tensor<bf16>
      }) : (tensor<256x4x32xbf16>) -> tensor<256x4x32xbf16>
      %cst_38 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %239 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
      %240 = stablehlo.divide %231, %239 : tensor<256xbf16>
      %cst_39 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %241 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
      %242 = stablehlo.divide %232, %241 : tensor<256xbf16>
      %cst_40 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %243 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<bf16>) -> tensor<256x512xbf16>
      %244 = stablehlo.divide %233, %243 : tensor<256x512xbf16>
      %cst_41 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %245 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<bf16>) -> tensor<512x256xbf16>
      %246 = stablehlo.divide %234, %245 : tensor<512x256xbf16>
      %cst_42 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %247 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %248 = stablehlo.divide %235, %247 : tensor<256x4x32xbf16>
      %cst_43 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %249 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<bf16>) -> tensor<4x32x256xbf16>
      %250 = stablehlo.divide %236, %249 : tensor<4x32x256xbf16>
      %cst_44 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %251 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %252 = stablehlo.divide %237, %251 : tensor<256x4x32xbf16>
      %cst_45 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
      %253 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %254 = stablehlo.divide %238, %253 : tensor<256x4x32xbf16>
      %cst_46 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %255 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
      %256 = stablehlo.multiply %255, %240 : tensor<256xbf16>
      %257 = stablehlo.subtract %arg10, %256 : tensor<256xbf16>
      %cst_47 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %258 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<bf16>) -> tensor<256xbf16>
      %259 = stablehlo.multiply %258, %242 : tensor<256xbf16>
      %260 = stablehlo.subtract %arg11, %259 : tensor<256xbf16>
      %cst_48 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %261 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<bf16>) -> tensor<256x512xbf16>
      %262 = stablehlo.multiply %261, %244 : tensor<256x512xbf16>
      %263 = stablehlo.subtract %arg12, %262 : tensor<256x512xbf16>
      %cst_49 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %264 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<bf16>) -> tensor<512x256xbf16>
      %265 = stablehlo.multiply %264, %246 : tensor<512x256xbf16>
      %266 = stablehlo.subtract %arg13, %265 : tensor<512x256xbf16>
      %cst_50 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %267 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %268 = stablehlo.multiply %267, %248 : tensor<256x4x32xbf16>
      %269 = stablehlo.subtract %arg14, %268 : tensor<256x4x32xbf16>
      %cst_51 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %270 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<bf16>) -> tensor<4x32x256xbf16>
      %271 = stablehlo.multiply %270, %250 : tensor<4x32x256xbf16>
      %272 = stablehlo.subtract %arg15, %271 : tensor<4x32x256xbf16>
      %cst_52 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %273 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %274 = stablehlo.multiply %273, %252 : tensor<256x4x32xbf16>
      %275 = stablehlo.subtract %arg16, %274 : tensor<256x4x32xbf16>
      %cst_53 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
      %276 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<bf16>) -> tensor<256x4x32xbf16>
      %277 = stablehlo.multiply %276, %254 : tensor<256x4x32xbf16>
      %278 = stablehlo.subtract %arg17, %277 : tensor<256x4x32xbf16>
      %279 = "stablehlo.all_reduce"(%116) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg20: tensor<f32>, %arg21: tensor<f32>):
        %281 = stablehlo.add %arg20, %arg21 : tensor<f32>
        stablehlo.return %281 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_54 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %280 = stablehlo.divide %279, %cst_54 : tensor<f32>
      sdy.return %257, %260, %263, %266, %269, %272, %275, %278, %280 : tensor<256xbf16>, tensor<256xbf16>, tensor<256x512xbf16>, tensor<512x256xbf16>, tensor<256x4x32xbf16>, tensor<4x32x256xbf16>, tensor<256x4x32xbf16>, tensor<256x4x32xbf16>, tensor<f32>
    } : (tensor<256xbf16>, tensor<256xbf16>, tensor<256x1024xbf16>, tensor<1024x256xbf16>, tensor<256x8x32xbf16>, tensor<8x32x256xbf16>, tensor<256x8x32xbf16>, tensor<256x8x32xbf16>, tensor<16x128x256xbf16>, tensor<16x128x256xf32>) -> (tensor<256xbf16>, tensor<256xbf16>, tensor<256x1024xbf16>, tensor<1024x256xbf16>, tensor<256x8x32xbf16>, tensor<8x32x256xbf16>, tensor<256x8x32xbf16>, tensor<256x8x32xbf16>, tensor<f32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8 : tensor<256xbf16>, tensor<256xbf16>, tensor<256x1024xbf16>, tensor<1024x256xbf16>, tensor<256x8x32xbf16>, tensor<8x32x256xbf16>, tensor<256x8x32xbf16>, tensor<256x8x32xbf16>, tensor<f32>
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
  func.func private @_where(%arg0: tensor<128x128xi1>, %arg1: tensor<4x4x128x128xbf16>, %arg2: tensor<bf16>) -> (tensor<4x4x128x128xbf16>, tensor<4x4x128x128xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<128x128xi1>) -> tensor<4x4x128x128xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<4x4x128x128xbf16>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<4x4x128x128xi1>, tensor<4x4x128x128xbf16>
    return %2, %0 : tensor<4x4x128x128xbf16>, tensor<4x4x128x128xi1>
  }
  func.func private @_where_0(%arg0: tensor<4x4x128x128xi1>, %arg1: tensor<4x4x128x128xbf16>) -> tensor<4x4x128x128xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x4x128x128xbf16>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<4x4x128x128xi1>, tensor<4x4x128x128xbf16>
    return %1 : tensor<4x4x128x128xbf16>
  }
}
